package nemesis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
)

// fakeBrokers is a three-node cluster that implements every real-broker
// hook and logs each call, so the faults' choices can be checked without
// starting Kafka (cluster/local's own tests prove the hooks on real JVMs).
type fakeBrokers struct {
	mu         sync.Mutex
	calls      []string
	down       map[int32]bool
	leader     int32
	controller int32
	noLeader   int // Leader fails this many times first
	failOn     string
}

func newFakeBrokers() *fakeBrokers {
	return &fakeBrokers{down: map[int32]bool{}, leader: 2, controller: 3}
}

func (f *fakeBrokers) log(format string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := fmt.Sprintf(format, args...)
	f.calls = append(f.calls, c)
	if f.failOn != "" && c == f.failOn {
		return errors.New("injected failure: " + c)
	}
	return nil
}

func (f *fakeBrokers) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *fakeBrokers) setDown(n int32, d bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down[n] = d
}

func (f *fakeBrokers) Name() string                                             { return "fake" }
func (f *fakeBrokers) Start(context.Context, cluster.Spec) error                { return nil }
func (f *fakeBrokers) Stop(context.Context) error                               { return nil }
func (f *fakeBrokers) Bootstrap() string                                        { return "fake:9092" }
func (f *fakeBrokers) CreateTopics(context.Context, ...cluster.TopicSpec) error { return nil }
func (f *fakeBrokers) Capabilities() []cluster.Capability                       { return nil }

func (f *fakeBrokers) Nodes() []cluster.Node {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []cluster.Node
	for id := int32(1); id <= 3; id++ {
		out = append(out, cluster.Node{ID: id, Up: !f.down[id]})
	}
	return out
}

func (f *fakeBrokers) Leader(context.Context, string, int32) (int32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.noLeader > 0 {
		f.noLeader--
		return -1, errors.New("no leader yet")
	}
	return f.leader, nil
}

func (f *fakeBrokers) ActiveController(context.Context) (int32, error) { return f.controller, nil }

// Coordinator: node 1 coordinates transactional ids, node 3 groups.
func (f *fakeBrokers) Coordinator(_ context.Context, kind cluster.CoordinatorKind, key string) (int32, error) {
	if key == "" {
		return -1, errors.New("asked for the coordinator of no key")
	}
	if kind == cluster.CoordinatorTxn {
		return 1, nil
	}
	return 3, nil
}

func (f *fakeBrokers) Kill(_ context.Context, n int32) error {
	err := f.log("kill %d", n)
	if err == nil {
		f.setDown(n, true)
	}
	return err
}

func (f *fakeBrokers) Restart(_ context.Context, n int32) error {
	f.setDown(n, false)
	return f.log("restart %d", n)
}
func (f *fakeBrokers) Pause(_ context.Context, n int32) error  { return f.log("pause %d", n) }
func (f *fakeBrokers) Resume(_ context.Context, n int32) error { return f.log("resume %d", n) }

func (f *fakeBrokers) StopNode(_ context.Context, n int32) error {
	f.setDown(n, true)
	return f.log("stop %d", n)
}

func (f *fakeBrokers) StartNode(_ context.Context, n int32) error {
	if err := f.log("start %d", n); err != nil {
		return err
	}
	f.setDown(n, false)
	return nil
}

func (f *fakeBrokers) Partition(_ context.Context, comps [][]int32) error {
	return f.log("partition %v", comps)
}
func (f *fakeBrokers) Heal(context.Context) error { return f.log("heal") }
func (f *fakeBrokers) CutLinks(_ context.Context, links [][2]int32) error {
	return f.log("cut %v", links)
}
func (f *fakeBrokers) PacketLoss(_ context.Context, n int32, pct int) error {
	return f.log("loss %d %d", n, pct)
}
func (f *fakeBrokers) SlowLink(_ context.Context, n int32, bps int64) error {
	return f.log("slow %d %d", n, bps)
}
func (f *fakeBrokers) SlowLinkMechanism() string { return "tbf" }

// Verified says the fake's hooks check their effect, as the real
// providers' do (cluster/local's tests prove the checks themselves).
func (f *fakeBrokers) Verified(e cluster.Effect) string { return "fake " + string(e) + " checked" }

// seq is a deterministic IntN: always the first remaining choice.
func seq(int) int { return 0 }

func targeting(f *fakeBrokers) Targeting {
	return Targeting{Provider: f, Topic: "t", Partition: 0, TxnID: "tx-queue-0", Group: "g", IntN: seq}
}

func realFault(t *testing.T, f *fakeBrokers, spec RealSpec) Fault {
	t.Helper()
	fault, err := Real(targeting(f), spec)
	if err != nil {
		t.Fatal(err)
	}
	return fault
}

func TestTargetsPickTheRightNodes(t *testing.T) {
	f := newFakeBrokers()
	ctx := context.Background()
	for target, want := range map[Target][]int32{
		TargetLeader: {2}, TargetController: {3}, TargetOne: {1},
		TargetMinority: {1}, TargetMajority: {1, 2}, TargetAll: {1, 2, 3},
		TargetTxnCoordinator: {1}, TargetGroupCoordinator: {3},
	} {
		got, err := targeting(f).Pick(target)(ctx)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s picked %v (%v), want %v", target, got, err, want)
		}
	}
	if _, err := targeting(f).Pick("everyone")(ctx); err == nil || !strings.Contains(err.Error(), "everyone") {
		t.Errorf("unknown target: %v", err)
	}
}

func TestRandomMinorityAndMajorityAreDisjointAndSized(t *testing.T) {
	f := newFakeBrokers()
	tg := Targeting{Provider: f}
	seen := map[string]bool{}
	for range 200 {
		m, _ := tg.pick(context.Background(), TargetMajority)
		if len(m) != 2 || m[0] >= m[1] {
			t.Fatalf("majority %v", m)
		}
		seen[fmt.Sprint(m)] = true
	}
	if len(seen) != 3 {
		t.Errorf("random majorities of 3 nodes: saw only %v", seen)
	}
}

func TestLeaderPickWaitsForAnElection(t *testing.T) {
	f := newFakeBrokers()
	f.noLeader = 3
	got, err := targeting(f).Pick(TargetLeader)(context.Background())
	if err != nil || !reflect.DeepEqual(got, []int32{2}) {
		t.Fatalf("leader after 3 failed lookups: %v, %v", got, err)
	}
}

func TestKillLeaderRecordsClusterAndHeals(t *testing.T) {
	f := newFakeBrokers()
	rec := &memRecorder{}
	kill := realFault(t, f, RealSpec{Kind: RealKill, Target: TargetLeader})
	if err := Run(context.Background(), Schedule{{Duration: 10 * time.Millisecond, Fault: kill}}, rec); err != nil {
		t.Fatal(err)
	}
	if got, want := f.Calls(), []string{"kill 2", "restart 2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	if fs := rec.fs(); !reflect.DeepEqual(fs, []string{"kill", "restart"}) {
		t.Fatalf("ops %v", fs)
	}
	var v struct {
		Fault  string
		Detail struct {
			Nodes              []int32
			Leader, Controller int32
			Target, Signal     string
		}
	}
	if err := json.Unmarshal(rec.ops[0].Value, &v); err != nil {
		t.Fatal(err)
	}
	d := v.Detail
	if v.Fault != "kill" || !reflect.DeepEqual(d.Nodes, []int32{2}) || d.Leader != 2 || d.Controller != 3 ||
		d.Target != "leader" || d.Signal != "SIGKILL" {
		t.Fatalf("kill op value %s", rec.ops[0].Value)
	}
}

func TestHalfAppliedKillHealsWhatItDid(t *testing.T) {
	f := newFakeBrokers()
	f.failOn = "kill 2"
	kill := realFault(t, f, RealSpec{Kind: RealKill, Target: TargetAll})
	ctx := context.Background()
	if err := kill.Start(ctx); err == nil {
		t.Fatal("kill of a node that failed reported success")
	}
	if err := kill.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := kill.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// Node 2's kill failed, maybe after acting: it is restarted too.
	got := f.Calls()
	slices.Sort(got[2:])
	if want := []string{"kill 1", "kill 2", "restart 1", "restart 2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
}

func TestNodeFaultsUseTheirSignals(t *testing.T) {
	for _, tc := range []struct {
		spec RealSpec
		want []string
	}{
		{RealSpec{Kind: RealPause, Target: TargetMajority}, []string{"pause 1", "pause 2", "resume 1", "resume 2"}},
		{RealSpec{Kind: RealCleanRestart, Target: TargetController}, []string{"stop 3", "start 3"}},
		{RealSpec{Kind: RealRollingRestart}, []string{"stop 1", "start 1", "stop 2", "start 2", "stop 3", "start 3"}},
	} {
		f := newFakeBrokers()
		fault := realFault(t, f, tc.spec)
		ctx := context.Background()
		if err := fault.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if err := fault.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		// Heals are parallel: compare as sets after the applies.
		got := f.Calls()
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: calls %v, want %v", tc.spec.Kind, f.Calls(), tc.want)
		}
	}
}

func TestRollingRestartLeftHalfWayRestartsTheNodeAtStop(t *testing.T) {
	f := newFakeBrokers()
	f.failOn = "start 2"
	roll := realFault(t, f, RealSpec{Kind: RealRollingRestart})
	ctx := context.Background()
	if err := roll.Start(ctx); err == nil {
		t.Fatal("failed roll reported success")
	}
	f.failOn = ""
	if err := roll.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := f.Calls(), []string{"stop 1", "start 1", "stop 2", "start 2", "start 2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	if !up(f, 2) {
		t.Fatal("node 2 left down")
	}
}

func TestNetworkFaultsBuildTheirTopologies(t *testing.T) {
	for _, tc := range []struct {
		spec RealSpec
		want []string
	}{
		{RealSpec{Kind: RealIsolate, Target: TargetLeader}, []string{"partition [[2] [1 3 -1]]", "heal"}},
		{RealSpec{Kind: RealIsolateLeader}, []string{"partition [[2] [1 3]]", "heal"}},
		{RealSpec{Kind: RealHalves}, []string{"partition [[1] [2 3]]", "heal"}},
		{RealSpec{Kind: RealBridge}, []string{"cut [[2 3]]", "heal"}},
		{RealSpec{Kind: RealCutClients, Target: TargetLeader}, []string{"cut [[-1 2]]", "heal"}},
		{RealSpec{Kind: RealPacketLoss, Target: TargetOne, Percent: 30}, []string{"loss 1 30", "loss 1 0"}},
		{RealSpec{Kind: RealSlowLink, Target: TargetAll, BitsPerSecond: 8000}, []string{"slow 1 8000", "slow 2 8000", "slow 3 8000"}},
	} {
		f := newFakeBrokers()
		fault := realFault(t, f, tc.spec)
		ctx := context.Background()
		if err := fault.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if got := f.Calls(); !reflect.DeepEqual(got, tc.want[:min(len(got), len(tc.want))]) || len(got) > len(tc.want) {
			t.Errorf("%s start: calls %v, want a prefix of %v", tc.spec.Kind, got, tc.want)
		}
		if err := fault.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if tc.spec.Kind == RealSlowLink {
			calls := f.Calls()
			if len(calls) != 6 || !slices.Contains(calls, "slow 2 0") {
				t.Errorf("slow-link heal: %v", calls)
			}
			d := fault.(Detailer).Detail().(map[string]any)
			if d["mechanism"] != "tbf" {
				t.Errorf("slow-link detail does not say tbf: %v", d)
			}
			continue
		}
		if got := f.Calls(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: calls %v, want %v", tc.spec.Kind, got, tc.want)
		}
	}
}

func TestImpossibleRealFaultsFailLoudly(t *testing.T) {
	f := newFakeBrokers()
	for _, spec := range []RealSpec{{Kind: RealPacketLoss, Percent: 0}, {Kind: RealPacketLoss, Percent: 101}, {Kind: RealSlowLink}} {
		if err := realFault(t, f, spec).Start(context.Background()); err == nil {
			t.Errorf("%+v started", spec)
		}
	}
	if _, err := Real(targeting(f), RealSpec{Kind: "meteor"}); err == nil || !strings.Contains(err.Error(), "meteor") {
		t.Errorf("unknown kind: %v", err)
	}
	plain := Targeting{Provider: embedded.New()}
	_, err := Real(plain, RealSpec{Kind: RealCleanRestart})
	if err == nil || !strings.Contains(err.Error(), "NodeStopper") || !strings.Contains(err.Error(), "embedded") {
		t.Errorf("clean restart on the embedded cluster: %v", err)
	}
	if _, err := plain.Pick(TargetController)(context.Background()); err == nil || !strings.Contains(err.Error(), "controller") {
		t.Errorf("embedded cluster asked for a controller it cannot know: %v", err)
	}
	noTxn := targeting(f)
	noTxn.TxnID = ""
	if _, err := noTxn.Pick(TargetTxnCoordinator)(context.Background()); err == nil || !strings.Contains(err.Error(), "no transactional id") {
		t.Errorf("txn-coordinator of a run without transactions: %v", err)
	}
	plain.Group = "g"
	if _, err := plain.Pick(TargetGroupCoordinator)(context.Background()); err == nil || !strings.Contains(err.Error(), "coordinator of consumer group") {
		t.Errorf("embedded cluster asked for a coordinator it cannot name: %v", err)
	}
}

// A fault's op names the coordinators of the run's transactional id and
// group beside the leader and the controller.
func TestSnapshotNamesTheCoordinators(t *testing.T) {
	d := targeting(newFakeBrokers()).snapshot(context.Background())
	if d["txn-coordinator"] != int32(1) || d["group-coordinator"] != int32(3) || d["leader"] != int32(2) {
		t.Errorf("snapshot %v: want txn-coordinator 1, group-coordinator 3, leader 2", d)
	}
}
