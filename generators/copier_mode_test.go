package generators

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/model"
)

// copying is the rules' fixed scenario with one transactional copier, as
// scenarios were written before copier-mode existed; fixed rather than
// drawn, so that a change to what the generators draw cannot change it.
func copying() Scenario {
	s := ruleScenario()
	s.Keys, s.Producer.TransactionalID = SequentialKeys(2, "in", "out"), "copier"
	s.Consumer.CommitStrategy = model.CommitTransactional
	s.Workload.Copiers, s.Workload.TxnSize, s.Workload.Mix.Txn = 1, 1, 1
	return s
}

// A scenario.json without copier-mode (every one saved before it existed)
// loads, and its copiers are transactional, as they always were; saving
// it again leaves the field out.
func TestCopierModeDefaultsToTransactional(t *testing.T) {
	b, err := json.Marshal(copying())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "copier-mode") || strings.Contains(string(b), "copier-assign") {
		t.Fatalf("default copier fields are written: %s", b)
	}
	s, err := Parse(b)
	if err != nil {
		t.Fatalf("a scenario without copier-mode: %v", err)
	}
	if got := s.Workload.CopyMode(); got != CopyTransactional {
		t.Fatalf("copier mode %q, want %q", got, CopyTransactional)
	}
}

// The at-least-once copier is a valid scenario with its own commit
// strategy and no transactional.id; each mistake names its field.
func TestCopierModeIsValidated(t *testing.T) {
	atLeastOnce := func(s *Scenario) {
		s.Workload.CopierMode = CopyAtLeastOnce
		s.Consumer.CommitStrategy = model.CommitAfterProcessing
		s.Producer.TransactionalID = ""
	}
	checkValidations(t, copying, []validation{
		{"transactional", func(*Scenario) {}, ""},
		{"transactional, spelled out", func(s *Scenario) { s.Workload.CopierMode = CopyTransactional }, ""},
		{"at-least-once", atLeastOnce, ""},
		{"at-least-once assigning", func(s *Scenario) { atLeastOnce(s); s.Workload.CopierAssign = true }, ""},
		{"unknown mode", func(s *Scenario) { s.Workload.CopierMode = "twice" },
			`workload.copier-mode: "twice", want transactional or at-least-once`},
		{"at-least-once committing transactionally", func(s *Scenario) { atLeastOnce(s); s.Consumer.CommitStrategy = model.CommitTransactional },
			`workload.copier-mode: at-least-once copiers commit their offsets after their sends: want consumer commit-strategy after-processing, not "transactional"`},
		// as before copier-mode: a weaker expectation, not a wrong one
		{"transactional committing after processing", func(s *Scenario) { s.Consumer.CommitStrategy = model.CommitAfterProcessing }, ""},
		{"transactional without an id", func(s *Scenario) { s.Producer.TransactionalID = "" },
			"workload.copiers: transactional copiers need a producer transactional.id"},
		{"two assigning copiers", func(s *Scenario) { s.Workload.CopierAssign, s.Workload.Copiers = true, 2 },
			"workload.copier-assign: each copier assigns every input key, so 2 copiers would each copy every record: want copiers = 1"},
	})
}
