package kafkachaos_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// Membership on real brokers: a replica of the partition every write goes
// to moved to a broker that held none of it and back while the producers
// and a consumer run (reassign), and KIP-848's consumer group protocol as
// a scenario dimension beside the classic one.

// TestChaosLocalReassign: RF 2 on three brokers, min ISR 2, the idempotent
// acks=all producer. A reassignment adds the new replica, lets it catch up
// into the ISR, and only then drops the old one, so it should lose and
// duplicate nothing; each move must complete (verified) and the partition
// return to its replicas.
func TestChaosLocalReassign(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): CI's short profile runs TestChaosLocalMembership, which makes this change among others")
	s := realScenario("local-reassign", p)
	s.Topic.ReplicationFactor = 2 // so that one broker of three holds no replica, for one to move to
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{faultAt(s, generators.KindReassign, "", 0.1, 0.6)}
	a := safeRun(t, s)
	moved, back := reassignOps(t, a.out)
	if err := movedOne(moved.From, moved.To); err != nil {
		t.Errorf("reassign-start: %v", err)
	}
	if !slices.Equal(back.Back, moved.From) {
		t.Errorf("reassign-stop moved back to %v, want the replicas before the move %v", back.Back, moved.From)
	}
	t.Logf("REASSIGN under %g ops/s: %v -> %v took %s, back took %s; %d sends ok; run dir %s",
		s.Workload.Rate, moved.From, moved.To, moved.Took, back.BackTook, a.out.Stats.OpsByType["send ok"], a.out.Dir)
}

// TestChaosLocalRemoveBroker: the leader of the written partition shut
// down cleanly and unregistered (an operator's decommission) under load,
// then started again, registering anew. RF 3, min ISR 2: the two replicas
// left keep acks=all writes going, and nothing is lost or duplicated.
func TestChaosLocalRemoveBroker(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): CI's short profile runs TestChaosLocalMembership, which makes this change among others")
	s := realScenario("local-remove-broker", p)
	// a clean stop, the fencing (broker session 6 s), a restart and the
	// catch-up take 20-40 s on two loaded cores
	s.TimeLimit = d(max(p.limit, 40*time.Second))
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{faultAt(s, generators.KindRemoveBroker, "leader", 0.1, 0.5)}
	a := safeRun(t, s)
	start, stop := nemesisOps(t, a.out, "remove-broker-start", "remove-broker-stop")
	t.Logf("REMOVE BROKER: start %s; stop %s; %s", start, stop, a)
}

// safeRun runs s once; the run must work (its faults fired and healed,
// 50 sends ok), lose and duplicate nothing, and hold its guarantee.
func safeRun(t *testing.T, s generators.Scenario) attempt {
	t.Helper()
	a := runReal(t, s, 0)
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	for _, an := range []checkers.Anomaly{checkers.LostWrite, checkers.Unseen, checkers.Duplicate, checkers.InconsistentOffsets} {
		if c := a.out.Result.Counts[an]; c > 0 {
			t.Errorf("%d %s: %s", c, an, a)
		}
	}
	if !a.out.Held {
		t.Errorf("the guarantee did not hold: %s", weaker(a))
	}
	return a
}

// nemesisOps is the values of the run's one startF and one stopF nemesis
// ops; either missing, or recorded with an error, fails t.
func nemesisOps(t *testing.T, out runner.Outcome, startF, stopF string) (start, stop json.RawMessage) {
	t.Helper()
	ops, _, err := histories.ReadFile(filepath.Join(out.Dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]*json.RawMessage{startF: &start, stopF: &stop}
	seen := map[string]int{}
	for _, op := range ops {
		v, ok := found[op.F]
		if op.Process != histories.NemesisProcess || !ok {
			continue
		}
		seen[op.F]++
		if op.Error != "" {
			t.Fatalf("%s op %d failed: %s", op.F, op.Index, op.Error)
		}
		*v = op.Value
	}
	if seen[startF] != 1 || seen[stopF] != 1 {
		t.Fatalf("history has %v of %s and %s, want one each", seen, startF, stopF)
	}
	return start, stop
}

// reassignDetail is what the reassign fault records of its moves.
type reassignDetail struct {
	From     []int32 `json:"from"`
	To       []int32 `json:"to"`
	Back     []int32 `json:"back"`
	Took     string  `json:"took"`
	BackTook string  `json:"back-took"`
	Verified string  `json:"verified"`
}

// reassignOps is the details of the run's one reassign-start and
// reassign-stop ops.
func reassignOps(t *testing.T, out runner.Outcome) (start, stop reassignDetail) {
	t.Helper()
	return detailOps[reassignDetail](t, out, "reassign-start", "reassign-stop")
}

// detailOps is the details of the run's one startF and one stopF nemesis
// ops (nemesisOps), read as D.
func detailOps[D any](t *testing.T, out runner.Outcome, startF, stopF string) (start, stop D) {
	t.Helper()
	startV, stopV := nemesisOps(t, out, startF, stopF)
	for _, v := range []struct {
		raw json.RawMessage
		d   *D
	}{{startV, &start}, {stopV, &stop}} {
		var op struct {
			Detail D `json:"detail"`
		}
		if err := json.Unmarshal(v.raw, &op); err != nil {
			t.Fatalf("%s op value %s: %v", startF, v.raw, err)
		}
		*v.d = op.Detail
	}
	return start, stop
}

// movedOne checks that to is from with one replica replaced by a broker
// from did not have.
func movedOne(from, to []int32) error {
	if len(from) == 0 || len(from) != len(to) {
		return fmt.Errorf("moved %v to %v: want as many replicas", from, to)
	}
	changed := 0
	for i := range from {
		if from[i] != to[i] {
			changed++
			if slices.Contains(from, to[i]) {
				return fmt.Errorf("moved %v to %v: broker %d held a replica already", from, to, to[i])
			}
		}
	}
	if changed != 1 {
		return fmt.Errorf("moved %v to %v: %d replicas changed, want 1", from, to, changed)
	}
	return nil
}

// consumerProtocolScenario is two group members on two keys committing
// after processing, with group.protocol=consumer, a member churned every
// 3 s from 10% of the run, and a broker killed at 70%. KIP-848's heartbeats and sessions are the
// brokers' (5 s and 45 s by default, 5 s and 45 s at the least): lowered
// here so that a churn's rebalance reaches the other member within the
// run.
func consumerProtocolScenario(s generators.Scenario) generators.Scenario {
	s.Keys = generators.SequentialKeys(2, "in", "")
	s.Consumer.CommitStrategy = model.CommitAfterProcessing
	s.Consumer.GroupProtocol = generators.GroupConsumer
	s.Workload.Consumers, s.Workload.Mode = 2, generators.ModeGroup
	s.Cluster.BrokerConfigs = map[string]string{
		"group.consumer.heartbeat.interval.ms": "500", "group.consumer.session.timeout.ms": "6000"}
	if s.Cluster.Provider != "embedded" { // kfake has no minimums to lower
		s.Cluster.BrokerConfigs["group.consumer.min.heartbeat.interval.ms"] = "500"
		s.Cluster.BrokerConfigs["group.consumer.min.session.timeout.ms"] = "6000"
	}
	s.Nemesis = []generators.Fault{
		{Kind: generators.KindChurn, Start: s.TimeLimit / 10, Duration: s.TimeLimit * 7 / 10,
			Params: generators.FaultParams{Every: d(3 * time.Second)}},
		{Kind: generators.KindKill, Start: s.TimeLimit * 7 / 10, Duration: s.TimeLimit * 15 / 100},
	}
	return s
}

// TestChaosLocalGroupProtocolConsumer: the consumer-group protocol on real
// brokers. Committing after processing is at least once whichever
// protocol assigns the partitions; the history must show rebalances, and
// none of the classic protocol's eager ones (see groupRun.givenBack): the
// proof that the members ran KIP-848.
func TestChaosLocalGroupProtocolConsumer(t *testing.T) {
	p := requireReal(t, "local")
	s := consumerProtocolScenario(realScenario("local-group-protocol-consumer", p))
	checkProtocolRun(t, runReal(t, s, 0), generators.GroupConsumer)
}

// TestChaosGroupProtocolConsumer is the same run on the selected cluster
// (by default the embedded one: kfake serves ConsumerGroupHeartbeat), with
// the classic protocol as the control: its eager rebalances must show.
func TestChaosGroupProtocolConsumer(t *testing.T) {
	parallelOnEmbedded(t)
	for _, protocol := range []string{generators.GroupClassic, generators.GroupConsumer} {
		s := consumerProtocolScenario(base("group-protocol-"+protocol, 12*time.Second))
		s.Consumer.GroupProtocol = protocol
		skipUninjectable(t, s)
		out, err := runner.Run(t.Context(), s, runner.Options{RunsDir: *flagRuns, TestName: t.Name(), Keep: true,
			Replay: replay, Reuse: suiteClusters})
		checkProtocolRun(t, attempt{out, err}, protocol)
	}
}

// checkProtocolRun checks a run of consumerProtocolScenario on protocol:
// it worked, held, and its rebalances are eager (classic) or not (consumer).
func checkProtocolRun(t *testing.T, a attempt, protocol string) {
	t.Helper()
	if why := worked(a, 50); why != "" {
		t.Fatalf("%s: the run proves nothing: %s; %s", protocol, why, a)
	}
	if !a.out.Held {
		t.Errorf("%s: the guarantee did not hold: %s", protocol, weaker(a))
	}
	g := groupOf(t, a.out)
	eager := protocol == generators.GroupClassic
	if g.polls == 0 || g.rebalances == 0 || (g.givenBack > 0) != eager {
		t.Errorf("%s: %d group polls ok, %d rebalances, %d of them eager: want polls, rebalances, and eager ones only under classic: %s",
			protocol, g.polls, g.rebalances, g.givenBack, a)
	}
	t.Logf("GROUP PROTOCOL %s: %d group polls ok, %d rebalances, %d eager; %s", protocol, g.polls, g.rebalances, g.givenBack, a)
}

// groupRun is what a group-mode history shows of its rebalances.
type groupRun struct {
	polls, rebalances int
	// givenBack counts keys revoked from a member that held them and
	// given back to it with no other member assigned them in between,
	// before the run's first kill: the classic protocol's eager assignors
	// (librdkafka's default range,roundrobin) revoke every key of every
	// member at every rebalance, so a member that keeps a key through a
	// churn shows that; KIP-848 revokes only the keys that go to another
	// member. A member that loses its membership (its coordinator killed)
	// gives its keys up and is given them back under either protocol, as
	// a KIP-848 member did on real brokers, so kills end the count.
	givenBack int
}

// groupOf reads what out's history shows of its group's rebalances. The
// keys a member holds are tracked as (held ∪ assigned) \ revoked per op.
// When one op both revoked and was assigned a key the order is not
// recorded (KIP-848 may assign a key and take it back within one poll), so
// a key counts as given back in one op only when the member held it
// before the op.
func groupOf(t *testing.T, out runner.Outcome) groupRun {
	t.Helper()
	ops, _, err := histories.ReadFile(filepath.Join(out.Dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	var g groupRun
	held := map[int64][]histories.Key{}
	revoked := map[histories.Key]int64{} // key -> the member it was last revoked from, held before
	killed := false
	for _, op := range ops {
		kind, edge := histories.FaultOf(&op)
		killed = killed || (kind == generators.KindKill && edge == histories.EdgeStart)
		if kind == generators.KindChurn && edge == histories.EdgeInstant && op.Type != histories.Invoke {
			// a member that left explains a key given back to its old
			// owner: KIP-848 returns a key meant for a member that
			// churned out before it took it
			clear(revoked)
		}
		if op.F != histories.FPoll || op.Group == "" || op.Type == histories.Invoke {
			continue
		}
		if op.Type == histories.OK {
			g.polls++
		}
		r := op.Rebalance
		if r == nil {
			continue
		}
		g.rebalances++
		before := held[op.Process]
		for _, k := range r.Revoked {
			if slices.Contains(before, k) {
				revoked[k] = op.Process
			}
		}
		for _, k := range r.Assigned {
			if from, ok := revoked[k]; ok && from == op.Process && !killed {
				g.givenBack++
			}
			delete(revoked, k)
		}
		now := append(slices.Clone(before), r.Assigned...)
		held[op.Process] = slices.DeleteFunc(now, func(k histories.Key) bool { return slices.Contains(r.Revoked, k) })
	}
	return g
}
