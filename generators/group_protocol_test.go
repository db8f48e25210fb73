package generators

import (
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/model"
)

// consumerProtocol is the baseline with two group consumers on protocol p.
func consumerProtocol(p string) Scenario {
	s := Baseline("protocol", "embedded", 10*time.Second)
	s.Workload.Consumers = 2
	s.Consumer.GroupProtocol = p
	return s
}

// classic, consumer and "" are the protocols; consumer needs group
// consumers, and takes consumer crashes in process and in client processes
// alike (crashed members are fenced under either protocol, and a killed
// process needs no fence). Each refusal names the field.
func TestGroupProtocolIsValidated(t *testing.T) {
	for _, p := range []string{"", GroupClassic, GroupConsumer} {
		if s := consumerProtocol(p); s.Validate() != nil {
			t.Errorf("%q: %v, want valid", p, s.Validate())
		}
	}
	churn := consumerProtocol(GroupConsumer)
	churn.Nemesis = []Fault{{Kind: KindChurn, Start: Duration(time.Second), Duration: Duration(5 * time.Second), Params: FaultParams{Every: Duration(time.Second)}}}
	if err := churn.Validate(); err != nil {
		t.Errorf("churn under the consumer protocol: %v, want valid", err)
	}
	crash := consumerProtocol(GroupConsumer)
	crash.Nemesis = []Fault{{Kind: KindCrashConsumer, Start: Duration(time.Second)}}
	killed := crash
	killed.Workload.ClientProcesses = true
	for name, s := range map[string]Scenario{"in process": crash, "in client processes": killed} {
		if err := s.Validate(); err != nil {
			t.Errorf("crash-consumer under the consumer protocol, %s: %v, want valid", name, err)
		}
	}
	assign := consumerProtocol(GroupConsumer)
	assign.Workload.Mode = ModeAssign
	copyOnly := consumerProtocol(GroupConsumer).TransactionalCopy(1, 0, 100)
	copyOnly.Consumer.CommitStrategy = model.CommitTransactional
	for name, tc := range map[string]struct {
		s    Scenario
		want string
	}{
		"unknown":      {consumerProtocol("eager"), `consumer.group-protocol: "eager", want classic or consumer`},
		"assign":       {assign, "consumer.group-protocol: consumer applies to group consumers, and the workload has none (mode assign"},
		"copiers only": {copyOnly, "consumer.group-protocol: consumer applies to group consumers, and the workload has none (mode group, 2 consumers, commit transactional)"},
	} {
		if err := tc.s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	if p := (Consumer{}).Protocol(); p != GroupClassic {
		t.Errorf(`"" reads as %q, want classic`, p)
	}
}
