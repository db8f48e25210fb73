package generators

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/model"
	"pgregory.net/rapid"
)

func ms(n int) Duration { return Duration(time.Duration(n) * time.Millisecond) }

// ruleScenario is a sound 4s scenario on three embedded brokers with one
// producer and one group consumer committing after processing, no faults:
// each rule case changes what its rule reads.
func ruleScenario() Scenario {
	return Scenario{Name: "rules", Seed: 1,
		Cluster:  Cluster{Provider: "embedded", Brokers: 3},
		Keys:     SequentialKeys(2, "in", ""),
		Topic:    model.TopicConfig{ReplicationFactor: 1, MinInsyncReplicas: 1},
		Producer: Producer{ProducerConfig: model.DefaultProducer()},
		Consumer: Consumer{ConsumerConfig: model.ConsumerConfig{IsolationLevel: model.ReadCommitted,
			CommitStrategy: model.CommitAfterProcessing}},
		Workload: Workload{Producers: 1, Lanes: 1, Consumers: 1, Mode: ModeGroup, Group: "g",
			Mix: Mix{Send: 1, Poll: 1}, PollBatch: 10},
		TimeLimit: Duration(4 * time.Second),
	}
}

// Each availability rule refuses the fault it is about, naming the field,
// and accepts the same fault once what it needs is there.
func TestAvailabilityRules(t *testing.T) {
	win := func(kind string) Fault { return Fault{Kind: kind, Start: ms(1000), Duration: ms(2000)} }
	inst := func(kind string, start, every int) Fault {
		return Fault{Kind: kind, Start: ms(start), Duration: ms(1000), Params: FaultParams{Every: ms(every)}}
	}
	noSenders := func(s *Scenario) { s.Workload.Producers = 0 }
	noConsumers := func(s *Scenario) { s.Workload.Consumers = 0 }
	brokers := func(n int) func(*Scenario) { return func(s *Scenario) { s.Cluster.Brokers = n } }
	copying := func(s *Scenario) {
		s.Keys, s.Producer.TransactionalID = SequentialKeys(2, "in", "out"), "copier"
		s.Consumer.CommitStrategy = model.CommitTransactional
		s.Workload.Copiers, s.Workload.TxnSize, s.Workload.Mix.Txn = 1, 1, 1
	}
	target := func(f Fault, tg string) Fault { f.Params.Target = tg; return f }
	point := func(f Fault, p string) Fault { f.Params.Point = p; return f }
	cases := []struct {
		name   string
		edit   func(*Scenario)
		faults []Fault
		want   string // the error's start; "" when available
	}{
		{"lost-ack with a producer", nil, []Fault{win(KindLostAck)}, ""},
		{"lost-ack without senders", noSenders, []Fault{win(KindLostAck)}, "nemesis[0].kind: lost-ack acts on producers"},
		{"delay without senders", noSenders, []Fault{win(KindDelay)}, "nemesis[0].kind: delay acts on producers"},
		{"drop without senders", noSenders, []Fault{win(KindDrop)}, "nemesis[0].kind: drop-connections acts on producers"},
		{"crash-producer without senders", noSenders, []Fault{inst(KindCrashProducer, 1000, 0)}, "nemesis[0].kind: crash-producer acts on producers"},
		{"crash-consumer with a consumer", nil, []Fault{inst(KindCrashConsumer, 1000, 0)}, ""},
		{"crash-consumer without consumers", noConsumers, []Fault{inst(KindCrashConsumer, 1000, 0)}, "nemesis[0].kind: crash-consumer acts on a consumer"},
		{"churn in a group", nil, []Fault{inst(KindChurn, 1000, 0)}, ""},
		{"churn without consumers", noConsumers, []Fault{inst(KindChurn, 1000, 0)}, "nemesis[0].kind: churn acts on a consumer"},
		{"churn in assign mode", func(s *Scenario) { s.Workload.Mode = ModeAssign }, []Fault{inst(KindChurn, 1000, 0)},
			"nemesis[0].kind: churn makes a group member leave, and the consumers are in mode assign"},
		{"leader-shuffle on two brokers", brokers(2), []Fault{inst(KindLeaderShuffle, 1000, 0)}, ""},
		{"leader-shuffle on one broker", brokers(1), []Fault{inst(KindLeaderShuffle, 1000, 0)}, "nemesis[0].kind: leader-shuffle needs 2 brokers"},
		{"partition into halves of three", nil, []Fault{win(KindPartition)}, ""},
		{"partition into halves of two", brokers(2), []Fault{win(KindPartition)}, "nemesis[0].kind: partition needs 3 brokers"},
		{"partition of a target from one other", brokers(2), []Fault{target(win(KindPartition), "leader")}, ""},
		{"kill a minority of two", brokers(2), []Fault{target(win(KindKill), "minority")}, "nemesis[0].kind: kill on target minority needs 3 brokers"},
		{"bridge on two", brokers(2), []Fault{win(KindBridge)}, "nemesis[0].kind: bridge needs 3 brokers"},
		{"crash-consumer at the run's start", nil, []Fault{inst(KindCrashConsumer, 0, 0)}, "nemesis[0].start: crash-consumer steps at [0s], none between 200ms"},
		{"crash-consumer repeated past the start", nil, []Fault{inst(KindCrashConsumer, 0, 300)}, ""},
		{"commit-point crash before the group forms", nil, []Fault{point(inst(KindCrashConsumer, 500, 0), CrashBeforeCommit)}, "nemesis[0].start: crash-consumer steps at [500ms], none between 1s"},
		{"commit-point crash once the group formed", nil, []Fault{point(inst(KindCrashConsumer, 1000, 0), CrashBeforeCommit)}, ""},
		{"commit-point crash in assign mode at once", func(s *Scenario) { s.Workload.Mode = ModeAssign }, []Fault{point(inst(KindCrashConsumer, 500, 0), CrashAnywhere)}, ""},
		{"crash-producer at once without copiers", nil, []Fault{inst(KindCrashProducer, 0, 0)}, ""},
		{"crash-producer at once with a copier", copying, []Fault{inst(KindCrashProducer, 0, 0)}, "nemesis[0].start: crash-producer steps at [0s], none between 1s"},
		{"crash-producer with a copier once it joined", copying, []Fault{inst(KindCrashProducer, 1000, 0)}, ""},
		{"crash too close to the end", nil, []Fault{{Kind: KindCrashProducer, Start: ms(3700)}}, "nemesis[0].start: crash-producer steps at [3.7s], none between 0s (its clients up) and 3.5s"},
		{"kill in the run's last millisecond", nil, []Fault{{Kind: KindKill, Start: ms(3999), Duration: ms(1)}}, ""},
		{"two kills of three brokers overlapping", nil, []Fault{win(KindKill), {Kind: KindPause, Start: ms(1500), Duration: ms(2000)}}, ""},
		{"a third node fault with two of three down", nil, []Fault{win(KindKill), {Kind: KindPause, Start: ms(1500), Duration: ms(2000)},
			{Kind: KindKill, Start: ms(2000), Duration: ms(500)}}, "nemesis[2].start: kill starts at 2s while nemesis[0 1] hold 2 of 3 brokers down"},
		{"a majority killed alone", nil, []Fault{target(win(KindKill), "majority")}, ""},
		{"a pause while a majority is killed", nil, []Fault{target(win(KindKill), "majority"), {Kind: KindPause, Start: ms(2000), Duration: ms(500)}},
			"nemesis[1].start: pause starts at 2s while nemesis[0] hold 2 of 3 brokers down"},
		{"a pause after the majority came back", nil, []Fault{target(win(KindKill), "majority"), {Kind: KindPause, Start: ms(3000), Duration: ms(500)}}, ""},
	}
	for _, c := range cases {
		s := ruleScenario()
		if c.edit != nil {
			c.edit(&s)
		}
		s.Nemesis = c.faults
		checkValidation(t, c.name, s, c.want)
	}
}

// Steps mirrors the runner's timeline: a window fault acts at its start,
// an instantaneous one at its start and then every Params.Every to the
// window's end.
func TestSteps(t *testing.T) {
	d := func(ns ...int) []time.Duration {
		var out []time.Duration
		for _, n := range ns {
			out = append(out, time.Duration(n)*time.Millisecond)
		}
		return out
	}
	cases := []struct {
		f    Fault
		want []time.Duration
	}{
		{Fault{Kind: KindKill, Start: ms(100), Duration: ms(1000), Params: FaultParams{Every: ms(300)}}, d(100)},
		{Fault{Kind: KindChurn, Start: ms(100), Duration: ms(1000)}, d(100)},
		{Fault{Kind: KindChurn, Start: ms(100), Duration: ms(1000), Params: FaultParams{Every: ms(300)}}, d(100, 400, 700, 1000)},
		{Fault{Kind: KindChurn, Start: ms(100), Duration: ms(200), Params: FaultParams{Every: ms(300)}}, d(100)},
	}
	for _, c := range cases {
		if got := Steps(c.f); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: steps %v, want %v", c.f, got, c.want)
		}
	}
}

// drawSpaces are the spaces the suite and the CLI draw from, and edge
// spaces whose kinds act only with clients or brokers a draw may lack.
func drawSpaces() map[string]Space {
	out := map[string]Space{"short": ShortSpace(), "long": LongSpace(), "fast": FastSpace()}
	for _, p := range []string{"embedded", "local", "docker", "external"} {
		sp := ShortSpace()
		sp.Provider, sp.Kinds, sp.MinFaults = p, KindsFor(p), 1
		out["short-"+p] = sp
	}
	one := ShortSpace()
	one.Brokers, one.MinFaults = 1, 1
	out["one-broker"] = one
	churn := ShortSpace()
	churn.Kinds, churn.MinFaults = []string{KindChurn}, 1
	out["churn-only"] = churn
	return out
}

// checkDraw fails when a drawn scenario is invalid, has a fault that
// cannot take effect or that queues behind another on the same clients,
// or fewer faults than its space asks.
func checkDraw(t interface{ Fatalf(string, ...any) }, name string, sp Space, s Scenario) {
	if err := s.Validate(); err != nil {
		t.Fatalf("%s: drawn scenario is invalid: %v\n%+v", name, err, s)
	}
	for i := range s.Nemesis {
		if err := Available(s, i); err != nil {
			t.Fatalf("%s: drawn fault unavailable: %v", name, err)
		}
	}
	if drawClashes(s) {
		t.Fatalf("%s: drawn client faults queue behind each other: %+v", name, s.Nemesis)
	}
	if len(s.Nemesis) < sp.MinFaults || len(s.Nemesis) > sp.MaxFaults {
		t.Fatalf("%s: %d faults, want %d..%d", name, len(s.Nemesis), sp.MinFaults, sp.MaxFaults)
	}
}

// Every fault drawn, by rapid or by seed, can take effect in its
// scenario, and a space that asks for faults gets them.
func TestDrawnFaultsAreAvailable(t *testing.T) {
	for name, sp := range drawSpaces() {
		rapid.Check(t, func(t *rapid.T) {
			checkDraw(t, name, sp, ScenarioGenIn(sp).Draw(t, "scenario"))
		})
		for seed := range int64(100) {
			checkDraw(t, name, sp, RandomIn(sp, seed))
		}
	}
}

// A space no draw can honour is refused when the generator is made.
func TestSpaceThatCannotDrawFaultsPanics(t *testing.T) {
	edits := map[string]func(*Space){
		"min above max":          func(sp *Space) { sp.MinFaults, sp.MaxFaults = 3, 2 },
		"no kinds":               func(sp *Space) { sp.Kinds = nil },
		"shuffle on one broker":  func(sp *Space) { sp.Kinds, sp.Brokers = []string{KindLeaderShuffle}, 1 },
		"churn without consumer": func(sp *Space) { sp.Kinds, sp.MaxConsumers = []string{KindChurn}, 0 },
	}
	for name, edit := range edits {
		sp := ShortSpace()
		sp.MinFaults = 1
		edit(&sp)
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "generators: space: ") {
					t.Errorf("%s: recovered %v, want a panic naming the space", name, r)
				}
			}()
			ScenarioGenIn(sp)
		}()
	}
}

// Client faults on the same clients queue when their windows, stretched
// by their effect, overlap; faults on other clients never do.
func TestClientFaultsQueue(t *testing.T) {
	crash := func(kind string, start, dur int) Fault { return Fault{Kind: kind, Start: ms(start), Duration: ms(dur)} }
	cases := []struct {
		a, b Fault
		want bool
	}{
		{crash(KindCrashConsumer, 1000, 500), crash(KindChurn, 1400, 500), true},
		{crash(KindCrashConsumer, 1000, 500), crash(KindCrashConsumer, 1900, 100), true}, // within its 500ms effect
		{crash(KindCrashConsumer, 1000, 500), crash(KindCrashConsumer, 2100, 100), false},
		{crash(KindCrashConsumer, 1000, 500), crash(KindCrashProducer, 1000, 500), false},
		{crash(KindLostAck, 1000, 500), crash(KindCrashProducer, 1000, 500), false},
	}
	for _, c := range cases {
		s := ruleScenario()
		s.Nemesis = []Fault{c.a, c.b}
		if got := drawClashes(s); got != c.want {
			t.Errorf("%s %v+%v and %s %v+%v: queue %v, want %v", c.a.Kind, c.a.Start, c.a.Duration, c.b.Kind, c.b.Start, c.b.Duration, got, c.want)
		}
	}
}
