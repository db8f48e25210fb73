package docker

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
	"github.com/twmb/franz-go/pkg/kgo"
)

// needDocker gates the container tests: they run when KAFKACHAOS_DOCKER=1
// (CI sets it) and then need root and an engine; missing either fails under
// CI=true and skips elsewhere, saying why.
func needDocker(t *testing.T) {
	t.Helper()
	if os.Getenv("KAFKACHAOS_DOCKER") != "1" {
		t.Skip("container tests are opt-in: set KAFKACHAOS_DOCKER=1 (and start an engine with scripts/dockerd.sh start)")
	}
	missing := strings.Join(Missing(t.Context()), "; ")
	if missing == "" {
		_, err := Image(t.Context(), "", "", func(string, ...any) {})
		if err == nil {
			return
		}
		missing = err.Error()
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("KAFKACHAOS_DOCKER=1 under CI but missing: %s", missing)
	}
	t.Skipf("KAFKACHAOS_DOCKER=1 but missing: %s", missing)
}

// startCluster starts a provider whose Stop runs at test end and whose
// leftovers must then be empty.
func startCluster(t *testing.T, spec cluster.Spec) *Provider {
	t.Helper()
	p := New(Options{Logf: t.Logf})
	if spec.RunDir == "" {
		spec.RunDir = t.TempDir()
	}
	began := time.Now()
	if err := p.Start(t.Context(), spec); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("cluster start: %s", time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() {
		ctx := context.Background()
		if err := p.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
		assertNothingLeft(t, p.id)
		for _, n := range []int{1, 2, 3}[:spec.WithDefaults().Brokers] {
			path := filepath.Join(spec.RunDir, "kafka-"+p.id, fmt.Sprintf("n%d", n), "broker.log")
			b, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(b), "Kafka Server started") {
				t.Errorf("broker log %s not copied at Stop or lacks the start line (err %v, %d bytes)", path, err, len(b))
			}
			if t.Failed() {
				t.Logf("broker %d, the last of its warnings, errors and leadership lines:\n%s", n, telling(string(b), 30))
			}
		}
	})
	return p
}

// telling is the last n lines of a broker log that say why a cluster
// stopped making progress: warnings, errors, ISR and leader changes,
// fencing, quorum elections. The test's directory goes with the test, so
// a failed run's log shows them.
func telling(log string, n int) string {
	var keep []string
	for line := range strings.Lines(log) {
		if tellingLine.MatchString(line) {
			keep = append(keep, strings.TrimRight(line, "\n"))
		}
	}
	return strings.Join(keep[max(0, len(keep)-n):], "\n")
}

var tellingLine = regexp.MustCompile(`WARN|ERROR|Shrinking ISR|Expanding ISR|ISR updated|[Ll]eader.*election|[Ff]enc|[Vv]oted|Completed transition to Leader|becoming leader`)

func assertNothingLeft(t *testing.T, id string) {
	t.Helper()
	cli, err := connect(context.Background(), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	left, err := Leftovers(context.Background(), cli, id)
	if err != nil {
		t.Errorf("Leftovers: %v", err)
	}
	if len(left) > 0 {
		t.Errorf("run %s left behind: %v", id, left)
	}
}

// produceAndRead writes one record with acks=all through the bootstrap
// servers and reads it back, within limit.
func produceAndRead(ctx context.Context, p *Provider, topic string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Seeds()...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return err
	}
	defer cl.Close()
	value := fmt.Sprintf("v-%d", time.Now().UnixNano())
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(value)}).FirstErr(); err != nil {
		return fmt.Errorf("produce: %w", err)
	}
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		for _, r := range fs.Records() {
			if string(r.Value) == value {
				return nil
			}
		}
	}
	return fmt.Errorf("record %s not read back: %w", value, ctx.Err())
}

func TestChaosDockerClusterFaults(t *testing.T) {
	needDocker(t)
	ctx := t.Context()
	p := startCluster(t, cluster.Spec{RunID: t.Name(), Topics: []cluster.TopicSpec{{Name: "t", Partitions: 1, MinInsyncReplicas: 2}}})
	if got := len(p.Nodes()); got != 3 {
		t.Fatalf("nodes = %d, want 3", got)
	}
	if err := produceAndRead(ctx, p, "t", 30*time.Second); err != nil {
		t.Fatalf("healthy cluster: %v", err)
	}

	t.Run("kill and restart the leader", func(t *testing.T) {
		leader, err := p.Leader(ctx, "t", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Kill(ctx, leader); err != nil {
			t.Fatal(err)
		}
		if up := nodeUp(p, leader); up {
			t.Fatalf("node %d reported up after Kill", leader)
		}
		// Fencing the dead leader waits out its broker session, and a new
		// controller first, when the leader was the active one.
		began := time.Now()
		if err := produceAndRead(ctx, p, "t", 2*time.Minute); err != nil {
			t.Fatalf("with leader %d killed (2 of 3 left, min ISR 2): %v; the partition then: %s", leader, err, partitionState(t, p, "t"))
		}
		t.Logf("with leader %d killed: written and read back after %s", leader, time.Since(began).Round(time.Millisecond))
		if err := p.Restart(ctx, leader); err != nil {
			t.Fatal(err)
		}
		waitAllRegistered(t, p)
	})

	t.Run("pause freezes a node", func(t *testing.T) {
		if err := p.Pause(ctx, 1); err != nil {
			t.Fatal(err)
		}
		_, paused, _, err := p.state(ctx, p.nodes[0])
		if err != nil || !paused {
			t.Fatalf("engine state after Pause: paused=%v err=%v", paused, err)
		}
		if err := dialAnswers(p.nodes[0].addr()); err == nil {
			t.Errorf("paused node 1 answered an ApiVersions request")
		}
		if err := p.Resume(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if err := dialAnswers(p.nodes[0].addr()); err != nil {
			t.Errorf("node 1 after Resume: %v", err)
		}
	})

	t.Run("partition the clients from a node, then heal", func(t *testing.T) {
		if err := p.Partition(ctx, [][]int32{{ClientNode, 1, 2}, {3}}); err != nil {
			t.Fatal(err)
		}
		if err := dialAnswers(p.nodes[2].addr()); err == nil {
			t.Errorf("node 3 reachable from the clients while partitioned away")
		}
		if err := dialAnswers(p.nodes[0].addr()); err != nil {
			t.Errorf("node 1 unreachable though in the clients' component: %v", err)
		}
		for range 2 { // heal is idempotent
			if err := p.Heal(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := dialAnswers(p.nodes[2].addr()); err != nil {
			t.Errorf("node 3 after Heal: %v", err)
		}
	})

	t.Run("isolating a node drops it from the ISR", func(t *testing.T) {
		if err := p.Partition(ctx, [][]int32{{ClientNode, 1, 2}, {3}}); err != nil {
			t.Fatal(err)
		}
		waitISRWithout(t, p, "t", 3)
		if err := p.HealAll(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("total packet loss cuts a node off, 0 restores it", func(t *testing.T) {
		if err := p.PacketLoss(ctx, 2, 100); err != nil {
			t.Fatal(err)
		}
		if err := dialAnswers(p.nodes[1].addr()); err == nil {
			t.Errorf("node 2 answered with 100%% packet loss")
		}
		if err := p.PacketLoss(ctx, 2, 0); err != nil {
			t.Fatal(err)
		}
		if err := dialAnswers(p.nodes[1].addr()); err != nil {
			t.Errorf("node 2 after removing the loss: %v", err)
		}
	})

	t.Run("cuts survive a restart", func(t *testing.T) {
		if err := p.CutLinks(ctx, [][2]int32{{ClientNode, 2}}); err != nil {
			t.Fatal(err)
		}
		if err := p.Kill(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if err := p.Restart(ctx, 2); err != nil {
			t.Fatal(err)
		}
		// Unreachable means something only once the restarted broker
		// listens: its socket is looked for inside its own namespace,
		// which the cut does not touch.
		waitListeningInside(t, p, p.nodes[1], 3*time.Minute)
		if err := dialAnswers(p.nodes[1].addr()); err == nil {
			t.Errorf("node 2 reachable after restart though the clients are cut from it")
		}
		if err := p.HealAll(ctx); err != nil {
			t.Fatal(err)
		}
		if err := realbroker.WaitListening(ctx, p.nodes[1].addr(), time.Minute, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("slow link puts tbf on both ends and removes it", func(t *testing.T) {
		if err := p.SlowLink(ctx, 1, 8_000_000); err != nil {
			t.Fatal(err)
		}
		inside, outside := qdiscs(t, p, p.nodes[0])
		if !strings.Contains(inside, "tbf") || !strings.Contains(outside, "tbf") {
			t.Errorf("after SlowLink: container eth0 %q, host veth %q; want tbf on both", inside, outside)
		}
		for range 2 { // clearing is idempotent
			if err := p.SlowLink(ctx, 1, 0); err != nil {
				t.Fatal(err)
			}
		}
		inside, outside = qdiscs(t, p, p.nodes[0])
		if strings.Contains(inside, "tbf") || strings.Contains(outside, "tbf") {
			t.Errorf("after clearing: container eth0 %q, host veth %q", inside, outside)
		}
	})

	t.Run("graceful stop and start; the controller is a node", func(t *testing.T) {
		ctrl, err := p.ActiveController(ctx)
		if err != nil || ctrl < 1 || ctrl > 3 {
			t.Fatalf("ActiveController = %d, %v", ctrl, err)
		}
		if err := p.StopNode(ctx, ctrl); err != nil {
			t.Fatal(err)
		}
		logs, _ := p.logs(ctx, p.nodes[ctrl-1])
		if !strings.Contains(logs, "shut down completed") {
			t.Errorf("node %d log shows no clean shutdown after StopNode", ctrl)
		}
		if err := p.StartNode(ctx, ctrl); err != nil {
			t.Fatal(err)
		}
		waitAllRegistered(t, p)
	})

	if err := produceAndRead(ctx, p, "t", 60*time.Second); err != nil {
		t.Fatalf("after every fault healed: %v", err)
	}
}

// waitListeningInside waits until n's broker has a listening socket on its
// port, seen by ss in the container's network namespace.
func waitListeningInside(t *testing.T, p *Provider, n *node, bound time.Duration) {
	t.Helper()
	_, port, err := net.SplitHostPort(n.addr())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(bound)
	for {
		pid, err := p.pid(t.Context(), n)
		if err == nil {
			out, serr := inNetns(t.Context(), pid, "", "ss", "-Hltn", "sport", "=", ":"+port)
			if serr == nil && strings.TrimSpace(out) != "" {
				return
			}
			err = serr
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s not listening on port %s inside its namespace after %s: %v", n.addr(), port, bound, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// qdiscs shows the root qdiscs of n's eth0 (inside) and its host veth.
func qdiscs(t *testing.T, p *Provider, n *node) (inside, outside string) {
	t.Helper()
	pid, err := p.pid(t.Context(), n)
	if err != nil {
		t.Fatal(err)
	}
	host, err := hostVeth(t.Context(), pid)
	if err != nil {
		t.Fatal(err)
	}
	inside, err = inNetns(t.Context(), pid, "", "tc", "qdisc", "show", "dev", "eth0")
	if err != nil {
		t.Fatal(err)
	}
	outside, err = inNetns(t.Context(), hostNetns, "", "tc", "qdisc", "show", "dev", host)
	if err != nil {
		t.Fatal(err)
	}
	return inside, outside
}

func nodeUp(p *Provider, id int32) bool {
	for _, n := range p.Nodes() {
		if n.ID == id {
			return n.Up
		}
	}
	return false
}

// dialAnswers connects to one broker alone and asks its API versions
// within 3 seconds: a frozen or cut broker does not answer.
func dialAnswers(addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTimeout(2*time.Second), kgo.RequestRetries(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return cl.Ping(ctx)
}

func waitAllRegistered(t *testing.T, p *Provider) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := p.Admin().Metadata(t.Context(), nil)
		if err == nil && len(resp.Brokers) == len(p.nodes) {
			return
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("metadata lists %d of %d brokers", len(resp.Brokers), len(p.nodes))
			}
			t.Fatalf("brokers after restart: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// waitISRWithout waits until topic's partition 0 ISR excludes node.
func waitISRWithout(t *testing.T, p *Provider, topic string, node int32) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	var isr []int32
	for time.Now().Before(deadline) {
		resp, err := p.Admin().Metadata(t.Context(), []string{topic})
		if err == nil && len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == 1 {
			isr = resp.Topics[0].Partitions[0].ISR
			if !containsID(isr, node) {
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("ISR still %v with node %d isolated", isr, node)
}

// partitionState is what the cluster's metadata says of topic's partition
// 0, for a failure message.
func partitionState(t *testing.T, p *Provider, topic string) string {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resp, err := p.Admin().Metadata(ctx, []string{topic})
	if err != nil {
		return fmt.Sprintf("(metadata: %v)", err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return fmt.Sprintf("(metadata: %d topics)", len(resp.Topics))
	}
	pt := resp.Topics[0].Partitions[0]
	return fmt.Sprintf("leader %d, epoch %d, replicas %v, ISR %v, error %d", pt.Leader, pt.LeaderEpoch, pt.Replicas, pt.ISR, pt.ErrorCode)
}

func containsID(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
