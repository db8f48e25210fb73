package local

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/procstat"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// requireRealKafka skips when this machine cannot run real brokers, except
// under CI=true, where a missing prerequisite is a failure.
func requireRealKafka(t *testing.T, needRoot bool) {
	t.Helper()
	missing := Missing(needRoot)
	if len(missing) == 0 {
		return
	}
	msg := "real Kafka test needs " + strings.Join(missing, ", ")
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: not skipping)")
	}
	t.Skip(msg)
}

func startCluster(t *testing.T, opts Options, spec cluster.Spec) *Provider {
	t.Helper()
	opts.Logf = t.Logf
	p := New(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	began := time.Now()
	if err := p.Start(ctx, spec); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("cluster of %d started in %s", len(p.Nodes()), time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() { assertNothingLeft(t, p) })
	return p
}

// assertNothingLeft stops p (twice: Stop is idempotent) and fails if any
// process, namespace, link, rule or owner file of its run remains.
func assertNothingLeft(t *testing.T, p *Provider) {
	t.Helper()
	ctx := context.Background()
	if err := p.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err := p.Stop(ctx); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	left, err := Leftovers(ctx, p.RunID())
	if err != nil {
		t.Errorf("Leftovers: %v", err)
	}
	if len(left) > 0 {
		t.Errorf("run %s left behind: %v", p.RunID(), left)
	}
}

// produceAndFetch writes one record with acks=all and reads it back.
func produceAndFetch(ctx context.Context, p *Provider, topic string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Seeds()...))
	if err != nil {
		return err
	}
	defer cl.Close()
	value := fmt.Sprintf("v-%d", time.Now().UnixNano())
	rec, err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(value)}).First()
	if err != nil {
		return fmt.Errorf("produce: %w", err)
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(p.Seeds()...), kgo.ConsumePartitions(
		map[string]map[int32]kgo.Offset{topic: {rec.Partition: kgo.NewOffset().At(rec.Offset)}}))
	if err != nil {
		return err
	}
	defer c.Close()
	for ctx.Err() == nil {
		for _, r := range c.PollFetches(ctx).Records() {
			if string(r.Value) == value {
				return nil
			}
		}
	}
	return fmt.Errorf("record %q at offset %d never fetched: %w", value, rec.Offset, ctx.Err())
}

// reachable reports whether a TCP connection from namespace ns ("" = the
// host) to addr succeeds within a second.
func reachable(ns, addr string) bool {
	if ns == "" {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	host, port, _ := net.SplitHostPort(addr)
	_, err := runIn(context.Background(), ns, "", "timeout", "1", "bash", "-c", "exec 3<>/dev/tcp/"+host+"/"+port)
	return err == nil
}

func TestLocalClusterFaults(t *testing.T) {
	requireRealKafka(t, true)
	p := startCluster(t, Options{}, cluster.Spec{RunID: t.Name(), RunDir: t.TempDir(),
		Topics: []cluster.TopicSpec{{Name: "t", Partitions: 1, MinInsyncReplicas: 2}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if !p.Namespaced() || !cluster.Supports(p, cluster.CapPartition) {
		t.Fatalf("root run is not namespaced with partitions: caps %v", p.Capabilities())
	}
	if err := produceAndFetch(ctx, p, "t"); err != nil {
		t.Fatal(err)
	}
	leader, err := p.Leader(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	if ctl, err := p.ActiveController(ctx); err != nil || ctl < 1 || ctl > 3 {
		t.Errorf("ActiveController = %d, %v", ctl, err)
	}
	for _, kind := range []cluster.CoordinatorKind{cluster.CoordinatorGroup, cluster.CoordinatorTxn} {
		// The first ask of a transactional id's coordinator creates the
		// transaction log; the picker's patience covers that, and so does this.
		deadline := time.Now().Add(30 * time.Second)
		c, err := p.Coordinator(ctx, kind, "kafkachaos-tx-0")
		for err != nil && time.Now().Before(deadline) {
			time.Sleep(300 * time.Millisecond)
			c, err = p.Coordinator(ctx, kind, "kafkachaos-tx-0")
		}
		if err != nil || c < 1 || c > 3 {
			t.Errorf("Coordinator(kind %d) = %d, %v; want one of the nodes 1..3", kind, c, err)
		}
	}

	// First, before any probe made the clock topic: a probe of one node
	// needs only that node, not a fenced other (a clock-skew beside a
	// partition or a kill).
	t.Run("clock probe with another node fenced", func(t *testing.T) {
		down, probed := leader, leader%3+1
		if err := p.Kill(ctx, down); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			md, err := p.Admin().Metadata(ctx, nil)
			if err == nil && !slices.ContainsFunc(md.Brokers, func(b kmsg.MetadataResponseBroker) bool { return b.NodeID == down }) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("killed node %d still in the metadata after 30 s (%v)", down, err)
			}
		}
		if skew, rtt, err := p.ProbeClock(ctx, probed); err != nil {
			t.Errorf("clock probe of node %d with node %d fenced: %v", probed, down, err)
		} else {
			t.Logf("node %d's clock: skew %v, round trip %v", probed, skew, rtt)
		}
		if err := p.Restart(ctx, down); err != nil {
			t.Fatal(err)
		}
		if _, err := waitHealthy(ctx, p, 90*time.Second); err != nil {
			t.Fatal(err)
		}
	})

	// Probes of every node at once: two add their partitions to the clock
	// topic in the same moment, one is refused for the count the other
	// raised, and each must still find its own partition.
	t.Run("clock probes of every node at once", func(t *testing.T) {
		errs := make([]error, 3)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { _, _, errs[i] = p.ProbeClock(ctx, int32(i+1)) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("clock probe of node %d: %v", i+1, err)
			}
		}
	})

	t.Run("kill and restart the leader", func(t *testing.T) {
		if err := p.Kill(ctx, leader); err != nil {
			t.Fatal(err)
		}
		if up := p.Nodes()[leader-1].Up; up {
			t.Errorf("killed node %d reported up", leader)
		}
		if reachable("", p.nodes[leader-1].addr()) {
			t.Errorf("killed node %d still accepts connections", leader)
		}
		if err := produceAndFetch(ctx, p, "t"); err != nil {
			t.Fatalf("two of three replicas should serve acks=all: %v", err)
		}
		began := time.Now()
		if err := p.Restart(ctx, leader); err != nil {
			t.Fatal(err)
		}
		t.Logf("restart verified (listening, registered, answering) in %v", time.Since(began).Round(time.Millisecond))
		if !p.Nodes()[leader-1].Up {
			t.Errorf("restarted node %d reported down", leader)
		}
		// Restart returned only once the node was back in the metadata:
		// asked once, not polled.
		md, err := p.Admin().Metadata(ctx, nil)
		if err != nil || !slices.ContainsFunc(md.Brokers, func(b kmsg.MetadataResponseBroker) bool { return b.NodeID == leader }) {
			t.Errorf("Restart returned before node %d was back in the metadata (%v)", leader, err)
		}
		if d, err := waitHealthy(ctx, p, 90*time.Second); err != nil {
			t.Error(err)
		} else {
			t.Logf("cluster healthy (ISR whole) %v after the restart", d)
		}
	})

	t.Run("pause and resume", func(t *testing.T) {
		began := time.Now()
		if err := p.Pause(ctx, 1); err != nil {
			t.Fatal(err)
		}
		t.Logf("pause verified in %v", time.Since(began).Round(time.Microsecond))
		pid := p.nodes[0].cmd.Process.Pid
		if stopped, other, err := procstat.Threads(pid); err != nil || other > 0 || stopped == 0 {
			t.Errorf("Pause returned with JVM threads %d stopped, %d not (%v)", stopped, other, err)
		}
		if p.Nodes()[0].Up {
			t.Error("paused node 1 reported up")
		}
		// Unhealthy either way: the paused broker does not answer, or it was
		// the one asked for metadata.
		if err := p.Healthy(ctx); err == nil {
			t.Error("cluster healthy with node 1 paused")
		}
		if err := p.Resume(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if stopped, _, err := procstat.Threads(pid); err != nil || stopped > 0 {
			t.Errorf("Resume returned with %d JVM threads stopped (%v)", stopped, err)
		}
		if !p.Nodes()[0].Up {
			t.Error("resumed node 1 reported down")
		}
	})

	t.Run("partition and heal", func(t *testing.T) {
		n1, n2, n3 := p.nodes[0], p.nodes[1], p.nodes[2]
		// Node 1 cut from its peers but not from the clients.
		if err := p.Partition(ctx, [][]int32{{1}, {2, 3}}); err != nil {
			t.Fatal(err)
		}
		if reachable(n1.ns, n2.addr()) || reachable(n3.ns, n1.addr()) {
			t.Error("node 1 still reaches a peer across the partition")
		}
		if !reachable(n2.ns, n3.addr()) || !reachable("", n1.addr()) {
			t.Error("partition cut links it should have kept")
		}
		// The read-back behind Partition sees a rule nobody asked for.
		want := []string{n2.ip, n3.ip}
		if err := checkTable(ctx, n1, func(l string) error { return realbroker.CheckBlocked(l, want) }); err != nil {
			t.Errorf("node 1's rules as the partition asked: %v", err)
		}
		if _, err := runIn(ctx, n1.ns, "", "nft", "add", "element", "inet", "kafkachaos", "blocked", "{ 10.213.250.9 }"); err != nil {
			t.Fatal(err)
		}
		if err := checkTable(ctx, n1, func(l string) error { return realbroker.CheckBlocked(l, want) }); err == nil {
			t.Error("a stray element in node 1's blocked set passed the read-back")
		}
		// Bridge topology: 1-2 and 2-3 connected, 1-3 cut; clients cut from 3.
		if err := p.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		if err := p.CutLinks(ctx, [][2]int32{{1, 3}, {ClientNode, 3}}); err != nil {
			t.Fatal(err)
		}
		if reachable(n1.ns, n3.addr()) || reachable("", n3.addr()) {
			t.Error("cut links still pass traffic")
		}
		if !reachable(n1.ns, n2.addr()) || !reachable(n2.ns, n3.addr()) {
			t.Error("bridge node 2 lost a link")
		}
		for range 2 { // heal is idempotent
			if err := p.Heal(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if !reachable(n1.ns, n3.addr()) || !reachable("", n3.addr()) {
			t.Error("heal left a cut")
		}
		if err := produceAndFetch(ctx, p, "t"); err != nil {
			t.Fatalf("after heal: %v", err)
		}
	})

	t.Run("replication cut shrinks the ISR to the leader", func(t *testing.T) {
		testReplicationCut(ctx, t, p)
	})

	t.Run("packet loss and slow link", func(t *testing.T) {
		if err := p.PacketLoss(ctx, 2, 100); err != nil {
			t.Fatal(err)
		}
		if reachable("", p.nodes[1].addr()) {
			t.Error("100% packet loss let a connection through")
		}
		if err := p.SlowLink(ctx, 2, 1_000_000); err != nil {
			t.Fatal(err)
		}
		out, _ := runIn(ctx, p.nodes[1].ns, "", "tc", "qdisc", "show", "dev", "eth0")
		if !strings.Contains(out, "tbf") {
			t.Errorf("no tbf qdisc on node 2: %s", out)
		}
		for range 2 {
			if err := p.HealAll(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if !reachable("", p.nodes[1].addr()) {
			t.Error("HealAll left packet loss")
		}
		out, _ = runIn(ctx, p.nodes[1].ns, "", "tc", "qdisc", "show", "dev", "eth0")
		if strings.Contains(out, "tbf") {
			t.Errorf("HealAll left tbf on node 2: %s", out)
		}
	})
}

// testReplicationCut cuts the broker listener between t's leader and its
// followers: the followers can neither fetch from it nor it from them, yet
// every node still reaches the controller listeners and the clients reach
// every node; the leader, still in the quorum, stays leader and shrinks
// the ISR to itself (replica.lag.time.max.ms, 10s here). Heal lets the
// followers back in.
func testReplicationCut(ctx context.Context, t *testing.T, p *Provider) {
	leader, err := p.Leader(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	var links [][2]int32
	for _, id := range p.IDs() {
		if id != leader {
			links = append(links, [2]int32{leader, id})
		}
	}
	if err := p.CutReplication(ctx, links); err != nil {
		t.Fatal(err)
	}
	l, f := p.nodes[leader-1], p.nodes[links[0][1]-1]
	other := p.nodes[links[1][1]-1]
	ctrl := func(n *node) string { return net.JoinHostPort(n.ip, strconv.Itoa(n.ctrlPort)) }
	if reachable(f.ns, l.addr()) || reachable(l.ns, f.addr()) {
		t.Error("leader and follower still reach each other's broker listener")
	}
	if !reachable(f.ns, ctrl(l)) || !reachable(l.ns, ctrl(f)) || !reachable("", l.addr()) || !reachable(f.ns, other.addr()) {
		t.Error("replication cut dropped controller, client or follower-follower traffic")
	}
	cut, kept := p.ReplicationPorts()
	if !slices.Equal(cut, []int{l.port}) || !slices.Equal(kept, []int{l.ctrlPort}) {
		t.Errorf("ReplicationPorts = %v, %v; want [%d], [%d]", cut, kept, l.port, l.ctrlPort)
	}
	// A follower whose log ends where the leader's does counts as caught
	// up however long it has not fetched: the ISR shrinks only once the
	// leader has a record the followers lack (acks=1: min ISR is 2 here).
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Seeds()...), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("past the followers")}).FirstErr(); err != nil {
		t.Fatalf("acks=1 produce to the cut leader: %v", err)
	}
	if err := waitISR(ctx, p, leader, 1, 40*time.Second); err != nil {
		t.Error(err)
	}
	// While the cut holds the ISR is the leader alone: the health check
	// must say so. (Right after the heal the followers may already be
	// back, so the check is made here.)
	if err := p.Healthy(ctx); err == nil || !strings.Contains(err.Error(), "has ISR") {
		t.Errorf("health with the ISR shrunk to the leader: %v", err)
	}
	for range 2 { // heal is idempotent
		if err := p.Heal(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if !reachable(f.ns, l.addr()) {
		t.Error("heal left the replication cut")
	}
	// Health is what a heal waits for: once it holds, the ISR is whole,
	// read once rather than polled.
	d, err := waitHealthy(ctx, p, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("healthy %v after the replication heal", d)
	if err := waitISR(ctx, p, -1, len(p.nodes), 0); err != nil {
		t.Errorf("healthy with a short ISR: %v", err)
	}
}

// waitHealthy polls p.Healthy as nemesis.Run does after a heal.
func waitHealthy(ctx context.Context, p *Provider, limit time.Duration) (time.Duration, error) {
	began := time.Now()
	for {
		err := p.Healthy(ctx)
		if err == nil {
			return time.Since(began), nil
		}
		if time.Since(began) > limit {
			return 0, fmt.Errorf("not healthy after %v: %w", limit, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// waitISR waits until partition t-0 has an ISR of size want, led by leader
// (-1: any leader).
func waitISR(ctx context.Context, p *Provider, leader int32, want int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	var last string
	for first := true; first || time.Now().Before(deadline) && ctx.Err() == nil; first = false {
		md, err := p.Admin().Metadata(ctx, []string{"t"})
		if err == nil && len(md.Topics) == 1 && len(md.Topics[0].Partitions) == 1 {
			pt := md.Topics[0].Partitions[0]
			last = fmt.Sprintf("leader %d, ISR %v", pt.Leader, pt.ISR)
			if len(pt.ISR) == want && (leader < 0 || pt.Leader == leader) {
				return nil
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("t-0 never had an ISR of %d led by %d within %s: last %s", want, leader, limit, last)
}
