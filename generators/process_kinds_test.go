package generators

import (
	"testing"
)

// Client processes: each rule refuses what it is about, naming the field,
// and the same scenario without the thing refused is valid.
func TestValidateClientProcesses(t *testing.T) {
	pause := func(role string) Fault {
		return Fault{Kind: KindPauseClient, Start: ms(3200), Duration: ms(500), Params: FaultParams{Role: role}}
	}
	processes := func(s *Scenario) { s.Workload.ClientProcesses = true }
	checkValidations(t, ruleScenario, []validation{
		{"processes", processes, ""},
		{"pause a consumer", func(s *Scenario) { processes(s); s.Nemesis = []Fault{pause(RoleConsumer)} }, ""},
		{"pause anyone", func(s *Scenario) { processes(s); s.Nemesis = []Fault{pause("")} }, ""},
		{"pause in process", func(s *Scenario) { s.Nemesis = []Fault{pause("")} }, "nemesis[0].kind: pause-client needs workload.client-processes"},
		{"pause a java client", func(s *Scenario) { s.Client = ClientJava; s.Nemesis = []Fault{pause("")} }, ""},
		{"pause a java consumer", func(s *Scenario) { s.Client = ClientJava; s.Nemesis = []Fault{pause(RoleConsumer)} }, ""},
		{"pause a librdkafka consumer beside java producers", func(s *Scenario) {
			s.Clients = map[string]string{RoleProducer: ClientJava}
			s.Nemesis = []Fault{pause(RoleConsumer)}
		}, "nemesis[0].kind: pause-client needs workload.client-processes, or the java client for the role it stops"},
		{"pause a JVM before it starts", func(s *Scenario) {
			s.Client = ClientJava
			s.Nemesis = []Fault{pause(RoleProducer)}
			s.Nemesis[0].Start = ms(1500)
		}, "nemesis[0].start: pause-client steps at [1.5s], none between 3s (its clients up)"},
		{"pause a stranger", func(s *Scenario) { processes(s); s.Nemesis = []Fault{pause("broker")} }, `nemesis[0].params.role: "broker", want producer, consumer, copier or txn-queue`},
		{"pause a copier of none", func(s *Scenario) { processes(s); s.Nemesis = []Fault{pause(RoleCopier)} }, "nemesis[0].kind: pause-client acts on a copier, and the workload has none"},
		{"pause too early", func(s *Scenario) {
			processes(s)
			s.Nemesis = []Fault{pause(RoleConsumer)}
			s.Nemesis[0].Start = ms(500)
		}, "nemesis[0].start: pause-client steps at [500ms], none between 1s (its clients up)"},
		{"role on a kill", func(s *Scenario) {
			s.Nemesis = []Fault{{Kind: KindKill, Start: ms(1000), Duration: ms(1000), Params: FaultParams{Role: RoleConsumer}}}
		}, "nemesis[0].params.role: only pause-client reads it"},
		{"a crash point", func(s *Scenario) {
			processes(s)
			s.Nemesis = []Fault{{Kind: KindCrashConsumer, Start: ms(1500), Duration: ms(1000), Params: FaultParams{Point: CrashBeforeCommit}}}
		}, `nemesis[0].params.point: "before-commit": a client process is killed wherever it is`},
		{"auto-commit", func(s *Scenario) { processes(s); s.Consumer.CommitStrategy = "auto" }, "workload.client-processes: consumer commit-strategy auto"},
		{"auto-commit in process", func(s *Scenario) { s.Consumer.CommitStrategy = "auto" }, ""},
	})
}
