package generators

import (
	"encoding/json"
	"strings"
	"testing"
)

// queueing is the rules' fixed scenario with two txn queues beside its
// producer and consumer.
func queueing() Scenario {
	s := ruleScenario()
	s.Producer.TransactionalID = "queue"
	s.Workload.TxnQueues, s.Workload.TxnSize, s.Workload.AbortRatio, s.Workload.Mix.Txn = 2, 4, 0.2, 1
	return s
}

// A scenario with txn queues is valid with what they need, and each thing
// missing is refused, naming its field.
func TestValidateTxnQueues(t *testing.T) {
	checkValidations(t, queueing, []validation{
		{"valid", func(*Scenario) {}, ""},
		{"queues alone", func(s *Scenario) { s.Workload.Producers, s.Workload.Consumers, s.Workload.Mix = 0, 0, Mix{Txn: 1} }, ""},
		{"no queues need nothing", func(s *Scenario) { s.Workload.TxnQueues, s.Workload.TxnSize, s.Producer.TransactionalID = 0, 0, "" }, ""},
		{"negative", func(s *Scenario) { s.Workload.TxnQueues = -1 }, "workload.txn-queues: -1, want >= 0"},
		{"no transactional.id", func(s *Scenario) { s.Producer.TransactionalID = "" }, "workload.txn-queues: txn queues need a producer transactional.id"},
		{"no txn-size", func(s *Scenario) { s.Workload.TxnSize = 0 }, "workload.txn-size: 0, want >= 1 with txn queues"},
		{"in client processes", func(s *Scenario) { s.Workload.ClientProcesses = true }, ""},
		{"intra-txn delay", func(s *Scenario) { s.Workload.IntraTxnDelay = Duration(200e6) }, ""},
		{"negative intra-txn delay", func(s *Scenario) { s.Workload.IntraTxnDelay = -1 }, "workload.intra-txn-delay: -1ns, want >= 0"},
		{"intra-txn delay without queues", func(s *Scenario) {
			s.Workload.TxnQueues, s.Workload.TxnSize, s.Workload.IntraTxnDelay = 0, 0, Duration(200e6)
		}, "workload.intra-txn-delay: 200ms without txn queues"},
	})
}

// workload.txn-queues is read from scenario.json and written back; a
// scenario without queues does not write the field, so scenarios saved
// before it existed stay as they were.
func TestTxnQueuesRoundTrip(t *testing.T) {
	b, err := json.Marshal(queueing())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"txn-queues":2`) {
		t.Fatalf("txn-queues not written: %s", b)
	}
	s, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload.TxnQueues != 2 {
		t.Fatalf("read back %d txn queues, want 2", s.Workload.TxnQueues)
	}
	if b, _ := json.Marshal(ruleScenario()); strings.Contains(string(b), "txn-queues") {
		t.Fatalf("a scenario without queues writes the field: %s", b)
	}
}
