package generators

import (
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// realSpaces are the local and docker spaces of every size the CLI and
// explore draw from, with at least one fault a draw.
func realSpaces() map[string]Space {
	out := map[string]Space{}
	for _, p := range []string{"local", "docker"} {
		for size, sp := range map[string]Space{"short": ShortSpace(), "fast": FastSpace(), "long": LongSpace()} {
			sp.Provider, sp.Kinds, sp.MinFaults = p, KindsFor(p), max(1, sp.MinFaults)
			out[p+"-"+size] = sp
		}
	}
	return out
}

// Every scenario drawn for real brokers, by rapid and by seed, validates,
// has only faults that can take effect, and asks its cluster for what its
// faults need: lazy disks for disk faults, movable clocks for skews,
// replication proxies for a toxic on the replication link, a dynamic
// quorum for remove-voter; an added broker has its time to join, and no
// membership change waits on another fault (membershipClash).
func TestRealDrawsValidate(t *testing.T) {
	for name, sp := range realSpaces() {
		check := func(t interface{ Fatalf(string, ...any) }, s Scenario) {
			checkDraw(t, name, sp, s)
			for _, f := range s.Nemesis {
				if !slices.Contains(sp.Kinds, f.Kind) {
					t.Fatalf("%s: drew %s, not one of %v", name, f.Kind, sp.Kinds)
				}
				switch {
				case isDiskKind(f.Kind) && !s.LazyDisks(), f.Kind == KindClockSkew && !s.Clocked(),
					f.onReplication() && !s.ReplicationProxied(), f.Kind == KindRemoveVoter && !s.DynamicQuorum():
					t.Fatalf("%s: %+v, and the cluster does not ask for what it needs", name, f)
				case f.Kind == KindAddBroker && f.Start.D() > s.TimeLimit.D()-addBrokerEffect:
					t.Fatalf("%s: add-broker at %v of %v: no %v left to join", name, f.Start, s.TimeLimit, addBrokerEffect)
				case f.Kind == KindRemoveVoter && f.Start.D() > s.TimeLimit.D()-voterChange:
					t.Fatalf("%s: remove-voter at %v of %v: no %v left for the removal to land", name, f.Start, s.TimeLimit, voterChange)
				}
			}
			if drawClashes(s) {
				t.Fatalf("%s: a membership change overlaps a fault it waits on: %+v", name, s.Nemesis)
			}
		}
		rapid.Check(t, func(t *rapid.T) { check(t, ScenarioGenIn(sp).Draw(t, "scenario")) })
		for seed := range int64(200) {
			check(t, RandomIn(sp, seed))
		}
	}
}

// drawnFeature names what a draw is counted for: each fault kind, a
// latency on the replication link, a clock strobe, txn queues, txn queues
// without copiers, and a crash-producer beside txn queues.
func drawnFeatures(s Scenario) []string {
	var out []string
	w := s.Workload
	if w.TxnQueues > 0 {
		out = append(out, "txn-queues")
	}
	if w.TxnQueues > 0 && w.Copiers == 0 {
		out = append(out, "queues-without-copiers")
	}
	for _, f := range s.Nemesis {
		out = append(out, f.Kind)
		if f.onReplication() {
			out = append(out, "latency/replication")
		}
		if f.Kind == KindClockSkew && f.Params.Mode == ClockStrobe {
			out = append(out, "clock-skew/strobe")
		}
		if f.Kind == KindCrashProducer && w.TxnQueues > 0 {
			out = append(out, "crash-producer/txn-queues")
		}
	}
	return out
}

// countDraws counts drawnFeatures over n seeded draws of sp.
func countDraws(sp Space, n int) map[string]int {
	got := map[string]int{}
	for seed := range int64(n) {
		for _, f := range drawnFeatures(RandomIn(sp, seed)) {
			got[f]++
		}
	}
	return got
}

// Each newer kind, the replication link and txn queues are drawn at all,
// over 400 draws per space; docker never draws what it cannot run, nor
// local-short add-broker or remove-voter, whose 2-4 s cannot hold the 30 s
// a broker takes to join or the 5 s a voter's removal takes to land.
func TestNewerKindsAreDrawn(t *testing.T) {
	const n = 400
	local := realSpaces()["local-long"]
	localShort := realSpaces()["local-short"]
	cases := []struct {
		name string
		sp   Space
		want []string
	}{
		{"local-long", local, []string{KindClockSkew, "clock-skew/strobe", KindPowerLoss, KindDiskFault, KindReassign,
			KindRemoveBroker, KindAddBroker, KindRemoveVoter, "latency/replication", "txn-queues"}},
		{"local-short", localShort, []string{KindClockSkew, KindPowerLoss, KindDiskFault, KindReassign, KindRemoveBroker,
			"latency/replication"}},
		{"docker-long", realSpaces()["docker-long"], []string{KindClockSkew, KindPowerLoss, KindDiskFault, KindReassign, "txn-queues"}},
		{"embedded-fast", FastSpace(), []string{"txn-queues", "queues-without-copiers", "crash-producer/txn-queues"}},
	}
	for _, c := range cases {
		got := countDraws(c.sp, n)
		t.Logf("%s: %d draws: %v", c.name, n, got)
		for _, k := range c.want {
			if got[k] == 0 {
				t.Errorf("%s: %s never drawn in %d draws: %v", c.name, k, n, got)
			}
		}
		if c.sp.Provider == "docker" {
			for _, k := range []string{KindRemoveBroker, KindAddBroker, KindRemoveVoter, "latency/replication"} {
				if got[k] > 0 {
					t.Errorf("docker drew %s %d times: the provider cannot run it", k, got[k])
				}
			}
		}
		if c.sp.MaxTime < addBrokerEffect && got[KindAddBroker] > 0 {
			t.Errorf("%s drew add-broker %d times in runs of at most %v", c.name, got[KindAddBroker], c.sp.MaxTime)
		}
	}
}

// A space without txn queues (the simulation's) never draws them, nor a
// transactional producer when it draws no copiers either.
func TestNoTxnQueuesWithoutRoom(t *testing.T) {
	sp := FastSpace()
	sp.MaxTxnQueues, sp.MaxCopiers = 0, 0
	for seed := range int64(300) {
		if s := RandomIn(sp, seed); s.Workload.TxnQueues > 0 || s.Producer.Transactional() {
			t.Fatalf("seed %d: %d txn queues, transactional.id %q in a space without room for them", seed, s.Workload.TxnQueues, s.Producer.TransactionalID)
		}
	}
}

// What txn queues and the real kinds need of a scenario: each case is
// refused naming its field, and its twin beside it is not.
func TestRealAndQueueAvailability(t *testing.T) {
	sec := time.Second
	queuesOnly := func(s *Scenario) {
		s.Producer.TransactionalID = "q"
		s.Workload.Producers, s.Workload.TxnQueues, s.Workload.TxnSize, s.Workload.Mix.Txn = 0, 1, 3, 1
	}
	noSenders := func(s *Scenario) { s.Workload.Producers = 0 }
	rf := func(n int) func(*Scenario) {
		return func(s *Scenario) { s.Topic.ReplicationFactor, s.Topic.MinInsyncReplicas = n, 1 }
	}
	hold := func(req string) Fault {
		return at(KindDelayedRequests, sec, 2*sec, FaultParams{Requests: []string{req}})
	}
	repl := at(KindLatency, sec, 2*sec, FaultParams{Link: LinkReplication})
	cases := []struct {
		name      string
		bad, good func(*Scenario)
		faults    []Fault
		field     string
	}{
		{"crash-producer needs senders; txn queues are", noSenders, queuesOnly,
			[]Fault{{Kind: KindCrashProducer, Start: Duration(1500 * time.Millisecond)}}, "nemesis[0].kind"},
		{"lost-ack needs senders; txn queues are", noSenders, queuesOnly,
			[]Fault{at(KindLostAck, sec, 2*sec, FaultParams{})}, "nemesis[0].kind"},
		{"end-txn held: txn queues send it", func(*Scenario) {}, queuesOnly,
			[]Fault{hold("end-txn")}, "nemesis[0].params.requests"},
		{"replication link needs followers", rf(1), rf(2), []Fault{repl}, "nemesis[0].params.link"},
		{"latency probes a lost-power broker", func(*Scenario) {}, func(s *Scenario) { s.Nemesis[1].Start = Duration(2 * sec) },
			[]Fault{at(KindPowerLoss, 0, 2*sec, FaultParams{Target: "one"}), at(KindLatency, sec, 3*sec, FaultParams{})}, "nemesis[1].start"},
		{"power loss of the replicas holds rf brokers down", rf(3), rf(1),
			[]Fault{at(KindPowerLoss, 0, 2*sec, FaultParams{Target: TargetReplicas}), at(KindKill, sec, 3*sec, FaultParams{})}, "nemesis[1].start"},
		{"clock skew of every broker needs time for each move", func(s *Scenario) { s.TimeLimit = Duration(7 * sec) },
			func(s *Scenario) { s.TimeLimit = Duration(9 * sec) },
			[]Fault{at(KindClockSkew, 0, 2*sec, FaultParams{Target: "all"})}, "nemesis[0].start"},
		{"a voter's removal needs time to land", func(s *Scenario) { s.Nemesis[0].Start = Duration(1 * sec) },
			func(s *Scenario) { s.TimeLimit = Duration(7 * sec) },
			[]Fault{at(KindRemoveVoter, sec, 2*sec, FaultParams{})}, "nemesis[0].start"},
	}
	for _, c := range cases {
		base := Baseline("real", "local", 5*time.Second)
		base.Workload.Consumers = 1
		base.Nemesis = c.faults
		bad, good := base, base
		bad.Nemesis, good.Nemesis = slices.Clone(c.faults), slices.Clone(c.faults)
		c.bad(&bad)
		c.good(&good)
		if err := good.Validate(); err != nil {
			t.Errorf("%s: the good twin: %v", c.name, err)
		}
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v, want an error naming %s", c.name, err, c.field)
		}
	}
}

// A strobe drawn into a window too short for two periods becomes a bump,
// which Validate accepts; one whose window holds two stays a strobe.
func TestFitStrobe(t *testing.T) {
	strobe := Fault{Kind: KindClockSkew, Duration: Duration(2*DefaultStrobe - time.Millisecond), Params: FaultParams{Mode: ClockStrobe}}
	if got := fitStrobe(strobe).Params.Mode; got != "" {
		t.Errorf("a strobe of %v: mode %q, want a bump", strobe.Duration, got)
	}
	strobe.Duration = Duration(2 * DefaultStrobe)
	if got := fitStrobe(strobe).Params.Mode; got != ClockStrobe {
		t.Errorf("a strobe of %v: mode %q, want it kept", strobe.Duration, got)
	}
}

// A draw's add-broker and remove-voter do not overlap what they would wait
// on or undo: each case clashes, and its twin moved clear of it does not.
func TestMembershipClash(t *testing.T) {
	sec := time.Second
	voter := at(KindRemoveVoter, 40*sec, 50*sec, FaultParams{Target: "one"})
	added := at(KindAddBroker, 10*sec, 20*sec, FaultParams{})
	cases := []struct {
		name      string
		clash, ok []Fault
	}{
		{"a kill while a voter is out; the kill after its return has landed",
			[]Fault{voter, at(KindKill, 45*sec, 50*sec, FaultParams{})}, []Fault{voter, at(KindKill, 56*sec, 58*sec, FaultParams{})}},
		{"a partition ending as the voter leaves; one healed before",
			[]Fault{voter, at(KindPartition, 35*sec, 40*sec, FaultParams{})}, []Fault{voter, at(KindPartition, 30*sec, 35*sec, FaultParams{})}},
		{"a reassign while the added broker's replica moves back; one after",
			[]Fault{added, at(KindReassign, 45*sec, 50*sec, FaultParams{})}, []Fault{added, at(KindReassign, 51*sec, 56*sec, FaultParams{})}},
		{"a voter out while a broker joins; a crash of a consumer then (add-broker waits on no client)",
			[]Fault{added, voter}, []Fault{added, at(KindCrashConsumer, 15*sec, 20*sec, FaultParams{})}},
		{"a kill while a broker joins; a kill once its replica moved back",
			[]Fault{added, at(KindKill, 15*sec, 20*sec, FaultParams{})}, []Fault{added, at(KindKill, 51*sec, 56*sec, FaultParams{})}},
	}
	for _, c := range cases {
		s := Baseline("real", "local", 90*sec)
		s.Nemesis = c.clash
		if !drawClashes(s) {
			t.Errorf("%s: %+v not a clash", c.name, c.clash)
		}
		s.Nemesis = c.ok
		if drawClashes(s) {
			t.Errorf("%s: the twin %+v clashes", c.name, c.ok)
		}
	}
}
