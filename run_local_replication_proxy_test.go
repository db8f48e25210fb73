package kafkachaos_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// Latency between the brokers: each broker's inter-broker listener is
// advertised at a proxy in the harness (cluster.replication-proxies, or a
// latency fault on link replication), so a follower's fetches from the
// leader can be made late while the clients reach the brokers directly.

// 300 ms ± 30 ms on the leader's replication proxy for the middle half of
// a 20 s run, acks=all, min.insync.replicas 2: every acknowledged send
// waits for a follower fetch that arrives late, so the sends slow down and
// nothing is lost. A baseline run without the toxic goes first, on the same
// cluster (the same reuse key: the brokers replicate through the proxies
// in both), and the sends of the toxic's window are set against the rest
// of the same run.
func TestChaosLocalReplicationLatency(t *testing.T) {
	p := requireReal(t, "local")
	p.limit = 20 * time.Second
	s := realScenario("local-replication-latency", p)
	s.Producer.Acks, s.Topic.MinInsyncReplicas = model.AcksAll, 2
	s.Cluster.ReplicationProxies = true

	// The full profile measures a baseline run without the toxic on the
	// same cluster; the short one (CI) compares the toxic's window with
	// the rest of its own run.
	var base runner.Quantiles
	if p.name != "short" {
		plain := runReal(t, s, 0)
		if plain.err != nil || plain.out.Stats.OpsByType["send ok"] < 50 {
			t.Fatalf("the baseline proves nothing: %s", plain)
		}
		base = plain.out.Stats.Latency["send"]
		t.Logf("send latency, baseline run without the toxic: %s", sendQ(base))
	}
	lat := faultAt(s, generators.KindLatency, "leader", 0.25, 0.75)
	lat.Params.Link, lat.Params.Delay, lat.Params.Jitter = generators.LinkReplication, d(300*time.Millisecond), d(30*time.Millisecond)
	s.Nemesis = []generators.Fault{lat}
	a := runReal(t, s, 1)
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	if !a.out.Held {
		t.Errorf("the guarantee did not hold: %s", weaker(a))
	}
	with := a.out.Stats.Latency["send"]
	in, out := sendLatencies(t, a.out, "latency")
	if base.N == 0 {
		base = out
	}
	t.Logf("send latency, run with 300 ms ± 30 ms on the leader's replication proxy for 5-15 s: %s", sendQ(with))
	t.Logf("  of which sends invoked while the toxic was on: %s; the rest: %s", sendQ(in), sendQ(out))
	t.Logf("p99 ratio with/without the toxic: whole run/baseline %.1f, window/rest of the same run %.1f",
		with.P99/max(base.P99, 1), in.P99/max(out.P99, 1))
	if in.N < 20 || in.P50 < 270 {
		t.Errorf("sends in the toxic's window: %s; want at least 20 with a p50 of at least 270 ms (acks=all waits for a follower fetch 300 ms ± 30 ms late)", sendQ(in))
	}
	if base.P99 >= 270 {
		t.Errorf("the send p99 without the toxic is %.1f ms: the proxies without a toxic are as slow as the toxic", base.P99)
	}
}

// sendLatencies are the quantiles of the ok sends' latencies in o's
// history, split by whether the send was invoked while fault f was on
// (from its op, recorded once the fault was in place, to its heal's).
func sendLatencies(t *testing.T, o runner.Outcome, f string) (in, out runner.Quantiles) {
	t.Helper()
	src, err := histories.Open(filepath.Join(o.Dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatalf("reopening the history: %v", err)
	}
	on, off := int64(-1), int64(-1)
	invoked := map[int64]int64{} // process -> its open send's invocation
	type send struct{ at, ns int64 }
	var sends []send
	err = src.Scan(func(op *histories.Op) error {
		switch {
		case op.Process == histories.NemesisProcess && faultEdge(op, f, histories.EdgeStart) && on < 0:
			on = op.Time
		case op.Process == histories.NemesisProcess && faultEdge(op, f, histories.EdgeStop) && off < 0:
			off = op.Time
		case op.F == histories.FSend && op.Type == histories.Invoke:
			invoked[op.Process] = op.Time
		case op.F == histories.FSend && op.Type == histories.OK:
			sends = append(sends, send{invoked[op.Process], op.Time - invoked[op.Process]})
		}
		return nil
	})
	if err != nil || on < 0 || off < on {
		t.Fatalf("the history's %s window: on at %d, off at %d (%v)", f, on, off, err)
	}
	var inNs, outNs []int64
	for _, s := range sends {
		if s.at >= on && s.at < off {
			inNs = append(inNs, s.ns)
		} else {
			outNs = append(outNs, s.ns)
		}
	}
	return runner.QuantilesOf(inNs), runner.QuantilesOf(outNs)
}

// sendQ is q for the log.
func sendQ(q runner.Quantiles) string {
	return fmt.Sprintf("p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d sends", q.P50, q.P99, q.Max, q.N)
}

// faultEdge reports whether op is kind's fault op at edge.
func faultEdge(op *histories.Op, kind string, edge histories.Edge) bool {
	k, e := histories.FaultOf(op)
	return k == kind && e == edge
}
