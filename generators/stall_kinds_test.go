package generators

import (
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/model"
)

// stall-consumer: each rule refuses what it is about, naming the field, and
// the same scenario without the thing refused is valid. ruleScenario has a
// group consumer committing after processing and a 4 s time limit.
func TestValidateStallConsumer(t *testing.T) {
	stall := func(edit func(*Fault)) func(*Scenario) {
		return func(s *Scenario) {
			f := Fault{Kind: KindStallConsumer, Start: ms(1500), Duration: ms(1500)}
			if edit != nil {
				edit(&f)
			}
			s.Nemesis = []Fault{f}
		}
	}
	both := func(edits ...func(*Scenario)) func(*Scenario) {
		return func(s *Scenario) {
			for _, e := range edits {
				e(s)
			}
		}
	}
	kip848 := func(s *Scenario) { s.Consumer.GroupProtocol = GroupConsumer }
	checkValidations(t, ruleScenario, []validation{
		{"a stall", stall(nil), ""},
		{"a stall of one", stall(func(f *Fault) { f.Params.Target = "one" }), ""},
		{"a stall under KIP-848", both(kip848, stall(nil)), ""},
		{"a stall of the leader", stall(func(f *Fault) { f.Params.Target = "leader" }), `nemesis[0].params.target: "leader": stall-consumer stalls one consumer`},
		{"a stall with a delay", stall(func(f *Fault) { f.Params.Delay = ms(100) }), "nemesis[0].params: {Probability:0 Delay:100ms"},
		{"a stall of nodes", stall(func(f *Fault) { f.Params.Nodes = []int32{1} }), "stall-consumer reads only target"},
		{"a stall with a role", stall(func(f *Fault) { f.Params.Role = RoleConsumer }), "stall-consumer reads only target"},
		{"a stall in client processes", both(func(s *Scenario) { s.Workload.ClientProcesses = true }, stall(nil)), ""},
		{"a stall of watching consumers", both(func(s *Scenario) { s.Consumer.CommitStrategy = model.CommitTransactional }, stall(nil)),
			"nemesis[0].kind: stall-consumer stalls a group consumer, and with commit-strategy transactional"},
		{"a stall to the end", stall(func(f *Fault) { f.Duration = ms(2000) }), "nemesis[0].duration: window ends at 3.5s: want it over 1s before the time limit 4s"},
		// availability (needOf): a group member that has joined
		{"a stall of assigning consumers", both(func(s *Scenario) { s.Workload.Mode = ModeAssign }, stall(nil)),
			"nemesis[0].kind: stall-consumer makes a group member leave, and the consumers are in mode assign"},
		{"a stall of no consumer", both(func(s *Scenario) { s.Workload.Consumers = 0 }, stall(nil)), "nemesis[0].kind: stall-consumer acts on a consumer"},
		{"a stall before the join", stall(func(f *Fault) { f.Start = ms(500) }), "nemesis[0].start: stall-consumer steps at [500ms], none between 1s (its clients up)"},
	})
}

// consumer max.poll.interval is checked as librdkafka would check it.
func TestValidateMaxPollInterval(t *testing.T) {
	maxPoll := func(d, session time.Duration) func(*Scenario) {
		return func(s *Scenario) {
			s.Consumer.MaxPollInterval, s.Consumer.SessionTimeout = Duration(d), Duration(session)
		}
	}
	checkValidations(t, ruleScenario, []validation{
		{"librdkafka's default", maxPoll(0, 0), ""},
		{"above the session", maxPoll(2*time.Second, time.Second), ""},
		{"the session's own", maxPoll(time.Second, time.Second), ""},
		{"below the session", maxPoll(500*time.Millisecond, time.Second), "consumer.max.poll.interval: 500ms is below session.timeout 1s"},
		{"below the default session", maxPoll(2*time.Second, 0), "consumer.max.poll.interval: 2s is below session.timeout 45s"},
		{"below the session under KIP-848", func(s *Scenario) {
			maxPoll(500*time.Millisecond, time.Second)(s)
			s.Consumer.GroupProtocol = GroupConsumer
		}, ""},
		{"a day and more", maxPoll(25*time.Hour, time.Second), "consumer.max.poll.interval: 25h0m0s, want 1ms to 24h0m0s"},
		{"negative", maxPoll(-time.Second, 0), "consumer.max.poll.interval: -1s, want 1ms to 24h0m0s"},
	})
}
