package generators

import (
	"time"

	"github.com/kafkachaos/kafkachaos/model"
)

// Baseline is the safe configuration hand-written scenarios start from and
// change one thing of: three brokers, two keys of topic "in" on three
// replicas with min.insync.replicas=2, the default (idempotent, acks=all)
// producer with four lanes, consumers (none yet) that read committed and
// commit after processing in group "kafkachaos", no faults, for limit on
// provider.
func Baseline(name, provider string, limit time.Duration) Scenario {
	return Scenario{
		Name: name, Seed: 1,
		Cluster: Cluster{Provider: provider, Brokers: 3},
		Keys:    SequentialKeys(2, "in", ""),
		Topic:   model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2},
		Producer: Producer{ProducerConfig: model.DefaultProducer(),
			DeliveryTimeout: Duration(20 * time.Second), RequestTimeout: Duration(2 * time.Second)},
		Consumer: Consumer{ConsumerConfig: model.ConsumerConfig{IsolationLevel: model.ReadCommitted,
			CommitStrategy: model.CommitAfterProcessing}, SessionTimeout: Duration(time.Second),
			AutoCommitInterval: Duration(50 * time.Millisecond)},
		Workload: Workload{Producers: 1, Lanes: 4, Mode: ModeGroup, Group: "kafkachaos",
			Mix: Mix{Send: 1, Poll: 1}, Rate: 300, PollBatch: 20},
		TimeLimit: Duration(limit),
	}
}

// TransactionalCopy is s as a transactional consume-transform-produce
// pipeline, the exactly-once case of Kafka's documented semantics: keys input keys of topic
// "in" copied to topic "out" by two copiers committing transactions of five
// records with read_committed, abortRatio of them aborted on purpose, at
// rate ops per second.
func (s Scenario) TransactionalCopy(keys int, abortRatio, rate float64) Scenario {
	s.Keys = SequentialKeys(keys, "in", "out")
	s.Producer.TransactionalID = "chaos-copier"
	s.Consumer.CommitStrategy = model.CommitTransactional
	s.Workload.Copiers, s.Workload.TxnSize, s.Workload.AbortRatio = 2, 5, abortRatio
	s.Workload.Mix.Txn, s.Workload.Rate = 2, rate
	return s
}
