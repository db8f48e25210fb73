package realbroker

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// fakeNet records what Cluster asks of a provider's network.
type fakeNet struct {
	noCuts  error
	mu      sync.Mutex
	blocked map[int32][]string
	loss    map[int32]int
}

func (f *fakeNet) NoCuts() error { return f.noCuts }
func (f *fakeNet) PeerIP(id int32) string {
	return Subnet{Prefix: "10.0.0.", HostOctet: 254}.PeerIP(id)
}
func (f *fakeNet) ApplyBlocked(_ context.Context, id int32, blocked []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.blocked[id] = blocked
	return nil
}
func (f *fakeNet) ApplyLoss(_ context.Context, id int32, pct int) error {
	f.loss[id] = pct
	return nil
}
func (f *fakeNet) Link(context.Context, int32) (Link, error) { return Link{}, errors.New("no link") }

// at is a node placed at addr.
type at struct {
	id   int32
	addr string
}

func (n at) NodeID() int32      { return n.id }
func (n at) ClientAddr() string { return n.addr }

func newFake(noCuts error, ids ...int32) (*Cluster, *fakeNet) {
	f := &fakeNet{noCuts: noCuts, blocked: map[int32][]string{}, loss: map[int32]int{}}
	c := NewCluster("cluster/fake", ProcessChecks{Kill: "reaped"}, f)
	var nodes []at
	for _, id := range ids {
		nodes = append(nodes, at{id, fmt.Sprintf("10.0.0.%d:9092", id)})
	}
	Place(c, nodes)
	return c, f
}

func TestClusterAppliesEachNodesShareOfTheCuts(t *testing.T) {
	c, f := newFake(nil, 1, 2, 3)
	ctx := t.Context()
	if err := c.Partition(ctx, [][]int32{{1}, {2, 3, ClientNode}}); err != nil {
		t.Fatal(err)
	}
	want := map[int32][]string{1: {"10.0.0.254", "10.0.0.2", "10.0.0.3"}, 2: {"10.0.0.1"}, 3: {"10.0.0.1"}}
	if !reflect.DeepEqual(f.blocked, want) {
		t.Errorf("after partition, blocked = %v, want %v", f.blocked, want)
	}
	if err := c.CutLinks(ctx, [][2]int32{{2, 3}}); err != nil {
		t.Fatal(err)
	}
	if got := f.blocked[2]; !reflect.DeepEqual(got, []string{"10.0.0.1", "10.0.0.3"}) {
		t.Errorf("CutLinks did not add to the partition: node 2 blocks %v", got)
	}
	if !ClientCut(c.Cuts(), 1) || ClientCut(c.Cuts(), 2) {
		t.Errorf("cuts %v: clients should be cut from node 1 only", c.Cuts())
	}
	if got := c.Blocked(3); !reflect.DeepEqual(got, []string{"10.0.0.1", "10.0.0.2"}) {
		t.Errorf("Blocked(3) = %v", got)
	}
	if err := c.SetCuts(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for id, b := range f.blocked {
		if len(b) != 0 {
			t.Errorf("after the heal node %d still blocks %v", id, b)
		}
	}
	if len(c.Cuts()) != 0 {
		t.Errorf("after the heal cuts are %v", c.Cuts())
	}
}

func TestClusterValidatesBeforeAskingTheNetwork(t *testing.T) {
	errNoNet := errors.New("no namespaces")
	c, f := newFake(errNoNet, 1, 2, 3)
	ctx := t.Context()
	for name, comps := range map[string][][]int32{
		"no component": {{1}, {2}},
		"twice":        {{1, 2}, {2, 3}},
		"unknown":      {{1, 2, 3}, {9}},
	} {
		err := c.Partition(ctx, comps)
		if err == nil || errors.Is(err, errNoNet) || !strings.HasPrefix(err.Error(), "cluster/fake: ") {
			t.Errorf("%s: Partition(%v) = %v, want a validation error of cluster/fake", name, comps, err)
		}
	}
	if err := c.CutLinks(ctx, [][2]int32{{1, 1}}); err == nil || errors.Is(err, errNoNet) {
		t.Errorf("cutting a node from itself = %v, want a validation error", err)
	}
	if err := c.Partition(ctx, [][]int32{{1}, {2, 3}}); !errors.Is(err, errNoNet) {
		t.Errorf("valid partition without a network = %v, want %v", err, errNoNet)
	}
	if len(c.Cuts()) != 0 || len(f.blocked) != 0 {
		t.Errorf("a partition that cannot be applied was recorded (%v) or applied (%v)", c.Cuts(), f.blocked)
	}
	if err := c.PacketLoss(ctx, 1, 5); !errors.Is(err, errNoNet) {
		t.Errorf("PacketLoss without a network = %v, want %v", err, errNoNet)
	}
	if err := c.PacketLoss(ctx, 1, 101); err == nil || errors.Is(err, errNoNet) {
		t.Errorf("PacketLoss of 101%% without a network = %v, want a validation error", err)
	}
}

func TestClusterPacketLossChecksItsInput(t *testing.T) {
	c, f := newFake(nil, 1, 2)
	ctx := t.Context()
	for _, tc := range []struct {
		id   int32
		pct  int
		want string
	}{{1, 101, "want 0..100"}, {1, -1, "want 0..100"}, {9, 5, "no node 9"}} {
		if err := c.PacketLoss(ctx, tc.id, tc.pct); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PacketLoss(%d, %d) = %v, want an error with %q", tc.id, tc.pct, err, tc.want)
		}
	}
	if err := c.PacketLoss(ctx, 2, 30); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.loss, map[int32]int{2: 30}) {
		t.Errorf("loss applied = %v, want node 2 at 30%%", f.loss)
	}
	if err := c.SlowLink(ctx, 1, -8); err == nil || !strings.Contains(err.Error(), "want >= 0") {
		t.Errorf("SlowLink at a negative rate = %v", err)
	}
}

func TestVerifiedEffectJoinsTheProvidersChecks(t *testing.T) {
	c, _ := newFake(nil, 1)
	for effect, want := range map[string]string{
		"kill": "reaped", "restart": "listener accepts connections; " + Registered,
		"cut": TableListed, "heal": TableListed, "packet-loss": TableListed, "slow-link": QdiscListed,
		"stop": "", "leader": "",
	} {
		if got := c.VerifiedEffect(effect); got != want {
			t.Errorf("VerifiedEffect(%q) = %q, want %q", effect, got, want)
		}
	}
}

// qdiscs fakes tc on the two ends of a link: what each end holds.
type qdiscs map[string]int64

func (q qdiscs) run(end string) Run {
	return func(_ context.Context, _, name string, args ...string) (string, error) {
		switch {
		case name != "tc":
			return "", fmt.Errorf("unexpected %s", name)
		case args[0] == "-j":
			if q[end] == 0 {
				return `[{"kind":"noqueue","root":true}]`, nil
			}
			return fmt.Sprintf(`[{"kind":"tbf","root":true,"options":{"rate":%d}}]`, q[end]/8), nil
		case args[1] == "del" && q[end] == 0:
			return "Error: Cannot delete qdisc with handle of zero.", errors.New("exit status 2")
		case args[1] == "del":
			delete(q, end)
		default:
			q[end] = 8_000_000
		}
		return "", nil
	}
}

func TestLinkSetRateCapsAndClearsBothEnds(t *testing.T) {
	q := qdiscs{}
	l := Link{InNode: q.run("node"), OnHost: q.run("host"), HostDev: "veth1"}
	ctx := t.Context()
	if err := l.SetRate(ctx, 8_000_000); err != nil {
		t.Fatal(err)
	}
	if q["node"] != 8_000_000 || q["host"] != 8_000_000 {
		t.Errorf("after SetRate both ends should be capped: %v", q)
	}
	for range 2 { // clearing is idempotent
		if err := l.SetRate(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(q) != 0 {
		t.Errorf("after clearing, qdiscs are %v", q)
	}
	if err := l.SetRate(ctx, 4_000_000); err == nil || !strings.Contains(err.Error(), "reading eth0 back") {
		t.Errorf("a rate the node does not report = %v, want a read-back error", err)
	}
}

func TestServeThenAwaitRestart(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	f := &fakeNet{blocked: map[int32][]string{}, loss: map[int32]int{}}
	c := NewCluster("cluster/fake", ProcessChecks{}, f)
	var nodes []at
	for i, addr := range kc.ListenAddrs() {
		nodes = append(nodes, at{int32(i), addr})
	}
	Place(c, nodes)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	running := func(int) string { return "" }
	if err := c.Serve(ctx, 30*time.Second, "test", running, func() string { return "" }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.AwaitRestart(ctx, 1, func() string { return "" }, func() string { return "" }); err != nil {
		t.Errorf("a serving broker is not seen back: %v", err)
	}
	// Node 9 listens nowhere: only a cut from the clients excuses it.
	Place(c, append(nodes, at{9, "127.0.0.1:1"}))
	err = c.AwaitRestart(ctx, 9, func() string { return "exited with status 1" }, func() string { return "the tail" })
	if err == nil || !strings.Contains(err.Error(), "node 9 exited with status 1 after restart; log tail:\nthe tail") {
		t.Errorf("a node that died again = %v, want its exit and log tail", err)
	}
	if err := c.CutLinks(ctx, [][2]int32{{ClientNode, 9}}); err != nil {
		t.Fatal(err)
	}
	if err := c.AwaitRestart(ctx, 9, func() string { return "exited" }, func() string { return "" }); err != nil {
		t.Errorf("a node cut from the clients cannot be seen back, yet AwaitRestart = %v", err)
	}
}
