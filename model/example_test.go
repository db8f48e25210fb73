package model_test

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/model"
)

// A run passes when the guarantee it showed satisfies the one its
// configuration promises.
func Example() {
	producer := model.ProducerConfig{Acks: model.AcksAll, Retries: 5, MaxInFlight: 1}
	topic := model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2}
	consumer := model.ConsumerConfig{IsolationLevel: model.ReadCommitted, CommitStrategy: model.CommitAfterProcessing}

	expected, err := model.Expected(producer, topic, consumer)
	if err != nil {
		panic(err)
	}
	fmt.Println("expected:", expected.EndToEnd)
	for _, why := range expected.Reasons() {
		fmt.Println(" -", why)
	}

	// A checker found a duplicate delivery: allowed by at-least-once.
	result := checkers.Result{AnomalyTypes: []checkers.Anomaly{checkers.DuplicateDelivery}}
	observed := model.Observed(result)
	fmt.Println("observed:", observed, "passes:", model.Satisfies(observed, expected.EndToEnd))

	// Losing a record is not.
	result.AnomalyTypes = append(result.AnomalyTypes, checkers.LostWrite)
	observed = model.Observed(result)
	fmt.Println("observed:", observed, "passes:", model.Satisfies(observed, expected.EndToEnd))
	// Output:
	// expected: at-least-once
	//  - producer: acks=all with min.insync.replicas>=2 and clean elections: every acknowledged record is on at least two in-sync replicas and only an in-sync replica can lead (no loss while one of them lives)
	//  - producer: retries>0 without idempotence: a write whose response was lost is sent again and lands twice (may duplicate)
	//  - consumer: commit after processing: a crash after processing and before the commit redelivers those records (may duplicate, no loss)
	// observed: at-least-once passes: true
	// observed: none passes: false
}

// The two hops combine into the weaker of the two.
func ExampleMeet() {
	fmt.Println(model.Meet(model.ExactlyOnce, model.AtLeastOnce))
	fmt.Println(model.Meet(model.AtMostOnce, model.AtLeastOnce))
	// Output:
	// at-least-once
	// none
}
