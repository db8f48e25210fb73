package explore_test

import (
	"os"

	"github.com/kafkachaos/kafkachaos/explore"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// A campaign's coverage: a row per configuration drawn, a column per fault
// kind, the draws of each cell.
func ExampleCoverage() {
	s := generators.Scenario{
		Producer: generators.Producer{ProducerConfig: model.ProducerConfig{Acks: model.AcksAll, Retries: 3}},
		Topic:    model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2},
		Consumer: generators.Consumer{ConsumerConfig: model.ConsumerConfig{CommitStrategy: model.CommitAfterProcessing}},
		Nemesis:  []generators.Fault{{Kind: generators.KindLostAck}},
	}
	c := explore.NewCoverage([]string{generators.KindLostAck, generators.KindKill})
	c.Add(s)
	c.Write(os.Stdout)
	// Output:
	// configuration                                     k1  k2
	// acks=all retries=3 isr=2 commit=after-processing   1   .
	// k1=lost-ack k2=kill
	// visited 1 of 2 cells (1 configurations x 2 kinds)
}
