package sim

import (
	"bytes"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
)

// faulted is a producer and a group consumer under a node kill held from
// 0.5 s to 1.5 s of a 3 s run.
func faulted() generators.Scenario {
	s := generators.Baseline("sim-faulted", "sim", 3*time.Second)
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{{Kind: generators.KindKill, Start: generators.Duration(500 * time.Millisecond),
		Duration: generators.Duration(time.Second), Params: generators.FaultParams{Nodes: []int32{1}}}}
	return s
}

// A simulated run's fault ops are read by liveness as a real run's are:
// the kill is a window from its start to its heal, the last heal is known,
// and the workload's progress inside the window is counted. The clients
// stall on the killed node's partition for about 3.5 s after its heal, so
// the run lasts 8 s to see them recover.
func TestLivenessSeesSimulatedFaultWindows(t *testing.T) {
	s := faulted()
	s.TimeLimit = generators.Duration(8 * time.Second)
	_, v := spawn(t, s)
	l := v.Result.Liveness
	if l == nil {
		t.Fatal("no liveness result")
	}
	var kill *checkers.FaultProgress
	for i, f := range l.Faults {
		if f.Fault == generators.KindKill {
			kill = &l.Faults[i]
		}
	}
	if kill == nil {
		t.Fatalf("liveness found no kill window: faults %+v", l.Faults)
	}
	if d := time.Duration(kill.ToNs - kill.FromNs); kill.Open || d < 900*time.Millisecond || d > 1100*time.Millisecond {
		t.Errorf("kill window %v long (open %v), want the scheduled 1 s", d, kill.Open)
	}
	if l.LastHealNs == nil || *l.LastHealNs != kill.ToNs || l.Unhealed {
		t.Errorf("last heal %v (unhealed %v), want the kill's end %d", l.LastHealNs, l.Unhealed, kill.ToNs)
	}
	if kill.OK["send"] == 0 {
		t.Errorf("no send counted inside the kill window (2 of 3 brokers up): %v", kill.OK)
	}
	if !l.Live {
		t.Errorf("not live after the heal: %+v", l.Kinds)
	}
}

// A run that ends 1.5 s after the heal, before its workload recovered,
// has its recovery unmeasured, not failed: the consumer's empty polls
// while the records sent to the killed node's partition wait are no
// progress, so the poll has no recovery time, and the 1.5 s the workload
// kept trying is short of checkers.RecoveryWindowNs, so it is not called
// never recovered either.
func TestSimulatedRunEndedBeforeRecoveryIsNotJudged(t *testing.T) {
	_, v := spawn(t, faulted())
	l := v.Result.Liveness
	if l == nil {
		t.Fatal("no liveness result")
	}
	if !l.Live {
		t.Errorf("not live, though the run ended 1.5 s after the heal: %+v", l.Kinds)
	}
	for _, k := range l.Kinds {
		if k.Kind == "poll" && (k.NeverRecovered || k.RecoveryNs != nil) {
			t.Errorf("poll: never recovered %v, recovery %v; want neither, every poll after the heal was empty while records waited",
				k.NeverRecovered, k.RecoveryNs)
		}
	}
}

// A consumer crash or churn counts once it landed; a crash at a commit
// point that never comes (nothing to consume, so nothing committed) did
// not fire, and records no fault op.
func TestConsumerFaultsCountOnceLanded(t *testing.T) {
	for _, tc := range []struct {
		kind, point string
		producers   int
		fired       int
	}{
		{generators.KindCrashConsumer, generators.CrashAnywhere, 1, 1},
		{generators.KindChurn, "", 1, 1},
		{generators.KindCrashConsumer, generators.CrashBeforeCommit, 0, 0},
	} {
		s := faulted()
		s.Workload.Producers = tc.producers
		s.Nemesis = []generators.Fault{{Kind: tc.kind, Start: generators.Duration(time.Second), Params: generators.FaultParams{Point: tc.point}}}
		p, _ := spawn(t, s)
		if p.FaultsFired != tc.fired {
			t.Errorf("%s %s, %d producers: %d faults fired, want %d", tc.kind, tc.point, tc.producers, p.FaultsFired, tc.fired)
		}
		if ops := bytes.Count(p.History, []byte(`"process":-1`)); ops != tc.fired {
			t.Errorf("%s %s, %d producers: %d nemesis ops, want %d (one per fault that landed)", tc.kind, tc.point, tc.producers, ops, tc.fired)
		}
		if crashes := bytes.Count(p.History, []byte(`"f":"crash"`)); tc.kind == generators.KindCrashConsumer && crashes != tc.fired {
			t.Errorf("%s %s: %d crash ops, want %d", tc.kind, tc.point, crashes, tc.fired)
		}
	}
}
