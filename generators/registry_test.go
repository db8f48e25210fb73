package generators

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// validationCases is a fault each kind refuses, naming the field: every
// kind has one (TestRegistryWalk).
func validationCases() map[string]struct {
	p     FaultParams
	field string
} {
	type c = struct {
		p     FaultParams
		field string
	}
	return map[string]c{
		KindLostAck:                  {FaultParams{Probability: 2}, "params.probability"},
		KindDelay:                    {FaultParams{Delay: -1}, "params"},
		KindDrop:                     {FaultParams{Offset: Duration(time.Minute)}, "params.offset"},
		KindLeaderShuffle:            {FaultParams{Every: -1}, "params"},
		KindKill:                     {FaultParams{Target: "some"}, "params.target"},
		KindPause:                    {FaultParams{Disk: DiskEIO}, "params.disk"},
		KindPartition:                {FaultParams{Percent: 5}, "params.percent"},
		KindCrashProducer:            {FaultParams{Role: RoleCopier}, "params.role"},
		KindCrashConsumer:            {FaultParams{Point: "never"}, "params.point"},
		KindChurn:                    {FaultParams{Toxic: "latency"}, "params.toxic"},
		KindCleanRestart:             {FaultParams{Target: TargetReplicas}, "params.target"},
		KindRollingRestart:           {FaultParams{Link: LinkReplication}, "params.link"},
		KindIsolateLeader:            {FaultParams{Mode: ClockStrobe}, "params.mode"},
		KindBridge:                   {FaultParams{Requests: []string{"produce"}}, "params.requests"},
		KindCutClients:               {FaultParams{Target: "one", Nodes: []int32{1}}, "params"},
		KindPacketLoss:               {FaultParams{Percent: 101}, "params.percent"},
		KindSlowLink:                 {FaultParams{}, "params.bits-per-second"},
		KindIsolateLeaderReplication: {FaultParams{Count: 1}, "params.count"},
		KindLatency:                  {FaultParams{Toxic: "netem"}, "params.toxic"},
		KindDelayedRequests:          {FaultParams{Requests: []string{"fetch"}}, "params.requests"},
		KindPauseClient:              {FaultParams{Role: "broker"}, "params.role"},
		KindReassign:                 {FaultParams{Target: "one"}, "params"},
		KindRemoveBroker:             {FaultParams{Target: "all"}, "params"},
		KindAddBroker:                {FaultParams{Every: Duration(time.Second)}, "params"},
		KindPowerLoss:                {FaultParams{Target: "majority"}, "params.target"},
		KindDiskFault:                {FaultParams{Disk: "slow"}, "params.disk"},
		KindClockSkew:                {FaultParams{Offset: Duration(time.Millisecond)}, "params.offset"},
		KindRemoveVoter:              {FaultParams{Target: "leader"}, "params"},
		KindStallConsumer:            {FaultParams{Target: "all"}, "params.target"},
	}
}

// fitScenario is a scenario a fault of k can act in alone: a long run on
// four brokers of the provider that has k's capability, with consumers,
// and client processes for a kind that stops one.
func fitScenario(k Kind) Scenario {
	provider := "local"
	if slices.Contains(providerCaps("embedded"), k.Capability) && !slices.Contains(providerCaps("local"), k.Capability) {
		provider = "embedded"
	}
	s := Baseline("walk-"+k.Name, provider, 90*time.Second)
	s.Cluster.Brokers = 4
	s.Workload.Consumers = 2
	s.Workload.ClientProcesses = k.Name == KindPauseClient
	return s
}

// The registry walk: every kind has a doc, a validation case that names
// its field, derived event names, a draw rule whose draws alone validate,
// and a capability that KindsFor honours.
func TestRegistryWalk(t *testing.T) {
	cases := validationCases()
	names := map[string]bool{}
	for _, k := range Registry() {
		if names[k.Name] {
			t.Errorf("%s registered twice", k.Name)
		}
		names[k.Name] = true
		if len(strings.Fields(k.Doc)) < 8 {
			t.Errorf("%s: doc %q is not a paragraph", k.Name, k.Doc)
		}
		if got, ok := LookupKind(k.Name); !ok || got.Name != k.Name {
			t.Errorf("LookupKind(%s) = %v, %v", k.Name, got.Name, ok)
		}
		if k.Instant && (eventsOf(k.Name) != k.Name) || !k.Instant && eventsOf(k.Name) != k.Name+"-start/"+k.Name+"-stop" {
			t.Errorf("%s: events %s", k.Name, eventsOf(k.Name))
		}
		c, ok := cases[k.Name]
		if !ok {
			t.Errorf("%s: no validation case", k.Name)
		} else {
			s := fitScenario(k)
			s.Nemesis = []Fault{{Kind: k.Name, Start: Duration(2 * time.Second), Duration: Duration(10 * time.Second), Params: c.p}}
			if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "nemesis[0]."+c.field+":") {
				t.Errorf("%s %+v: %v, want an error naming nemesis[0].%s", k.Name, c.p, err, c.field)
			}
		}
		if k.draw == nil {
			t.Errorf("%s: no draw rule", k.Name)
			continue
		}
		checkDrawnAlone(t, k)
		for _, p := range []string{"embedded", "sim", "local", "docker", "external"} {
			has := k.Capability == "" || slices.Contains(providerCaps(p), k.Capability)
			if drawn := slices.Contains(KindsFor(p), k.Name); drawn != (has && k.Drawn) {
				t.Errorf("%s on %s: drawn %v, capability %q had %v, drawn kind %v", k.Name, p, drawn, k.Capability, has, k.Drawn)
			}
		}
	}
	if len(names) != 29 || !slices.Equal(Kinds(), slices.Collect(func(yield func(string) bool) {
		for _, k := range Registry() {
			yield(k.Name)
		}
	})) {
		t.Errorf("Kinds() = %v, want the registry's %d names", Kinds(), len(names))
	}
}

// eventsOf is the events a kind's fault records, by the convention the
// event readers follow: <kind>-start and <kind>-stop for a window, the
// kind's name for an instantaneous step.
func eventsOf(kind string) string {
	if Instantaneous(kind) {
		return kind
	}
	return kind + "-start/" + kind + "-stop"
}

// checkDrawnAlone draws k's fault (its draw rule, its window) into a
// scenario fit for it, over many seeds: each must validate.
func checkDrawnAlone(t *testing.T, k Kind) {
	t.Helper()
	for seed := range uint64(50) {
		s := fitScenario(k)
		d := randDrawer{rand.New(rand.NewPCG(seed, 7))}
		label := func(name string) string { return name }
		f := drawFault(d, label, s, k.Name, window{0, int(s.TimeLimit.D() / time.Millisecond)})
		s.Nemesis = []Fault{f}
		if err := s.Validate(); err != nil {
			t.Fatalf("%s drawn alone, seed %d: %v\n%+v", k.Name, seed, err, f)
		}
	}
}

// Every space's random draws are playable: Validate, which refuses the
// schedules no run can play (clashes), accepts every one.
func TestDrawsAreValidInEverySpace(t *testing.T) {
	spaces := map[string]Space{"short": ShortSpace(), "fast": FastSpace(), "long": LongSpace()}
	for _, p := range []string{"embedded", "sim", "local", "docker", "external"} {
		sp := ShortSpace()
		sp.Provider, sp.Kinds, sp.MinFaults, sp.MaxFaults = p, KindsFor(p), 1, 4
		spaces[p+"-short"] = sp
		long := LongSpace()
		long.Provider, long.Kinds = p, KindsFor(p)
		spaces[p+"-long"] = long
	}
	for name, sp := range spaces {
		n := 300
		if sp.MaxTime > time.Minute {
			n = 60
		}
		for seed := range int64(n) {
			s := RandomIn(sp, seed)
			if err := s.Validate(); err != nil {
				t.Fatalf("%s seed %d: %v\n%+v", name, seed, err, s.Nemesis)
			}
			if drawClashes(s) {
				t.Fatalf("%s seed %d: a drawn schedule clashes: %v", name, seed, clashes(s, true))
			}
			for _, f := range s.Nemesis {
				if !healsInTime(f, s) {
					t.Fatalf("%s seed %d: %s ends at %s, its heal of %s past the %s run", name, seed, f.Kind, f.End(), healFor(f), s.TimeLimit)
				}
				if effect := f.need(s).effect; f.Params.Every > 0 && f.Params.Every.D() < effect {
					t.Fatalf("%s seed %d: %s repeats every %s, sooner than its step lands (%s)", name, seed, f.Kind, f.Params.Every, effect)
				}
			}
		}
	}
}

// at is a fault of kind from..to seconds with params.
func window2(kind string, from, to float64, p FaultParams) Fault {
	sec := func(x float64) Duration { return Duration(time.Duration(x * float64(time.Second))) }
	return Fault{Kind: kind, Start: sec(from), Duration: sec(to - from), Params: p}
}

// Each clash rule, hand-written: Validate refuses the pair (naming both
// faults) or, for a soft rule, accepts it while a draw would not; apart,
// both are accepted.
func TestClashRules(t *testing.T) {
	one, leader, ctl := FaultParams{Target: "one"}, FaultParams{Target: "leader"}, FaultParams{Target: "controller"}
	cases := []struct {
		name    string
		brokers int
		a, b    Fault
		hard    string // what Validate's refusal says; "" for a soft rule
		apart   Fault  // b moved where it no longer clashes
		noClash bool   // a and b may overlap
	}{
		{"two removals (controller and leader)", 5, window2(KindRemoveBroker, 10, 20, ctl), window2(KindRemoveBroker, 15, 25, leader),
			"two brokers out of the cluster at once", window2(KindRemoveBroker, 24, 28, leader), false},
		{"a reassign beside a removal, no spare broker", 4, window2(KindReassign, 10, 20, FaultParams{}), window2(KindRemoveBroker, 15, 25, one),
			"no broker to move one to", window2(KindRemoveBroker, 21, 25, one), false},
		{"a reassign beside a removal, a spare left", 5, window2(KindReassign, 10, 20, FaultParams{}), window2(KindRemoveBroker, 15, 25, one),
			"", Fault{}, true},
		{"a disk fault under a power loss of all", 5, window2(KindDiskFault, 10, 20, FaultParams{Target: "leader", Disk: DiskENOSPC}), window2(KindPowerLoss, 15, 17, FaultParams{Target: "all"}),
			"both act on a broker's disk", window2(KindPowerLoss, 21, 23, FaultParams{Target: "all"}), false},
		{"a disk fault under a power loss of one", 5, window2(KindDiskFault, 10, 20, one), window2(KindPowerLoss, 15, 17, one),
			"both act on a broker's disk", window2(KindPowerLoss, 21, 23, one), false},
		{"two reassigns", 5, window2(KindReassign, 10, 20, FaultParams{}), window2(KindReassign, 15, 25, FaultParams{}),
			"both move a replica", window2(KindReassign, 21, 25, FaultParams{}), false},
		{"a moved clock beside a removal", 3, window2(KindRemoveBroker, 10, 20, leader), window2(KindClockSkew, 12, 18, leader),
			"a broker out of the cluster takes no replica", window2(KindClockSkew, 24, 28, leader), false},
		{"a voter out beside a removal", 5, window2(KindRemoveVoter, 10, 20, one), window2(KindRemoveBroker, 15, 18, one),
			"with a voter out", window2(KindRemoveBroker, 26, 28, one), false},
		{"a failing disk beside a partition (soft)", 5, window2(KindDiskFault, 10, 20, FaultParams{Target: "leader", Disk: DiskReadEIO}), window2(KindPartition, 15, 18, FaultParams{}),
			"", window2(KindPartition, 21, 24, FaultParams{}), false},
		{"a voter out beside a kill (soft)", 5, window2(KindRemoveVoter, 10, 20, one), window2(KindKill, 15, 18, FaultParams{}),
			"", window2(KindKill, 26, 28, FaultParams{}), false},
		{"an added broker beside a reassign (soft)", 5, window2(KindAddBroker, 10, 20, FaultParams{}), window2(KindReassign, 15, 18, FaultParams{}),
			"", window2(KindReassign, 51, 55, FaultParams{}), false},
		{"two crashes of consumers (soft)", 5, window2(KindCrashConsumer, 10, 12, FaultParams{}), window2(KindChurn, 11, 13, FaultParams{}),
			"", window2(KindChurn, 13, 14, FaultParams{}), false},
		{"a kill beside a reassign", 5, window2(KindKill, 10, 20, FaultParams{}), window2(KindReassign, 15, 18, FaultParams{}),
			"a membership change waits on every broker", window2(KindReassign, 21, 24, FaultParams{}), false},
		{"a pause beside a reassign", 5, window2(KindPause, 10, 20, FaultParams{}), window2(KindReassign, 15, 18, FaultParams{}),
			"a membership change waits on every broker", window2(KindReassign, 21, 24, FaultParams{}), false},
		{"a partition beside a removal of the leader", 5, window2(KindRemoveBroker, 10, 20, leader), window2(KindPartition, 15, 18, FaultParams{}),
			"a membership change waits on every broker", window2(KindPartition, 24, 27, FaultParams{}), false},
		{"a failing disk beside a reassign", 5, window2(KindReassign, 10, 20, FaultParams{}), window2(KindDiskFault, 15, 18, FaultParams{Target: "leader", Disk: DiskReadEIO}),
			"a membership change waits on every broker", window2(KindDiskFault, 21, 24, FaultParams{Target: "leader", Disk: DiskReadEIO}), false},
		{"a consumer crash beside a reassign", 5, window2(KindReassign, 10, 20, FaultParams{}), window2(KindCrashConsumer, 15, 18, FaultParams{}),
			"", Fault{}, true},
	}
	for _, c := range cases {
		s := Baseline("clash", "local", 90*time.Second)
		s.Cluster.Brokers = c.brokers
		s.Workload.Consumers = 1
		s.Nemesis = []Fault{c.a, c.b}
		err := s.Validate()
		switch {
		case c.noClash:
			if err != nil || drawClashes(s) {
				t.Errorf("%s: %v (draw clash %v), want the pair accepted", c.name, err, clashes(s, true))
			}
			continue
		case c.hard != "":
			want := fmt.Sprintf("nemesis[1]: overlaps nemesis[0] (%s) from %s to %s: ", c.a.Kind, c.a.Start, c.a.End())
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), c.hard) {
				t.Errorf("%s: %v, want %q ... %q", c.name, err, want, c.hard)
			}
		default:
			if err != nil || !drawClashes(s) {
				t.Errorf("%s: Validate %v, draw clash %v: want it accepted by hand and refused by a draw", c.name, err, drawClashes(s))
			}
		}
		s.Nemesis = []Fault{c.a, c.apart}
		if err := s.Validate(); err != nil || drawClashes(s) {
			t.Errorf("%s apart: %v (draw clash %v), want accepted", c.name, err, clashes(s, true))
		}
	}
}

// A power loss of all brokers needs its heal budget before the run ends
// and before a clashing window: a draw never ends one later, and never
// starts a disk fault within it.
func TestPowerLossOfAllHasItsHealBudget(t *testing.T) {
	if got := kindOf(KindPowerLoss).HealBudget(); got < 30*time.Second {
		t.Fatalf("power-loss heal budget %s, want a long one", got)
	}
	if got := healFor(Fault{Kind: KindPowerLoss, Params: FaultParams{Target: "one"}}); got != 0 {
		t.Errorf("power-loss of one: heal budget %s, want none beyond the restart", got)
	}
	s := Baseline("heal", "local", 60*time.Second)
	all := window2(KindPowerLoss, 10, 20, FaultParams{Target: "all"})
	s.Nemesis = []Fault{all, window2(KindDiskFault, 40, 45, one())}
	if !drawClashes(s) {
		t.Errorf("a disk fault 20s after a power loss of all (budget %s): a draw takes it", healFor(all))
	}
	s.Nemesis = []Fault{all, window2(KindDiskFault, 66, 70, one())}
	s.TimeLimit = Duration(90 * time.Second)
	if drawClashes(s) {
		t.Errorf("a disk fault after a power loss's heal budget: %v", clashes(s, true))
	}
	short := Baseline("short", "local", 4*time.Second)
	if fits(short, Fault{Kind: KindPowerLoss, Params: FaultParams{Target: "all"}}) {
		t.Error("a power loss of all fits a 4s run, its heal budget does not")
	}
	if !fits(short, Fault{Kind: KindPowerLoss, Params: FaultParams{Target: "one"}}) {
		t.Error("a power loss of one does not fit a 4s run")
	}
}

func one() FaultParams { return FaultParams{Target: "one"} }

// A power loss of every replica, unless the brokers flush every message,
// is a condition the model weakens the producer hop for; one of a single
// broker is not.
func TestPowerLossOfEveryReplicaIsAnUnsyncedLoss(t *testing.T) {
	for _, c := range []struct {
		target string
		flush  string
		want   bool
	}{{"replicas", "", true}, {"all", "", true}, {"", "", true}, {"one", "", false}, {"leader", "", false}, {"all", "1", false}} {
		s := Baseline("power", "local", 10*time.Second)
		s.Nemesis = []Fault{{Kind: KindPowerLoss, Start: Duration(time.Second), Duration: Duration(time.Second), Params: FaultParams{Target: c.target}}}
		if c.flush != "" {
			s.Cluster.BrokerConfigs = map[string]string{"log.flush.interval.messages": c.flush}
		}
		if got := s.Conditions().UnsyncedLoss; got != c.want {
			t.Errorf("power loss of %q, flush %q: unsynced loss %v, want %v", c.target, c.flush, got, c.want)
		}
	}
}
