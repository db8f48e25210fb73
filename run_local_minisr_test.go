package kafkachaos_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// Jepsen 2013: with min.insync.replicas=1 the ISR may shrink to the leader
// alone, and acks=all writes are then acknowledged with one copy. If that
// leader is lost and an out-of-sync replica is elected (unclean leader
// election), the acknowledged writes are gone. With unclean election off
// (the default) the partition should stay leaderless until the old leader
// returns: unavailable, not lossy.
//
// Forcing the ISR down to the leader needs a fault that stops replication
// without fencing the leader: a full partition of the leader from its
// followers also cuts it from the KRaft quorum (combined
// broker+controller nodes), so it is fenced instead.
// isolate-leader-replication drops only the broker listener between the
// leader and its followers; the controller listener and the clients stay
// up. The broker logs of each run must show the ISR shrinking to the
// leader alone, or the run proves nothing.

// minISR1Lag is replica.lag.time.max.ms for these runs: the ISR shrinks
// within 1.5 times of it after the cut, leaving most of the cut for
// acknowledged single-copy writes.
const minISR1Lag = 3 * time.Second

// minISR1Scenario: one key, acks=all idempotent producer, min ISR 1, no
// consumer but the final reads; the leader's replication is cut at 10% of
// the run, the leader is killed at 40% while the cut stands (by then the
// ISR is the leader alone), the cut heals at 75% and the old leader
// restarts at 80%.
//
// No consumer, because a record any ok poll returned is never counted
// lost (Jepsen's rule), and a consumer reads the single-copy records from
// the leader before the election truncates them away: the acknowledged
// records the old leader truncates below its high watermark would all
// count as read, and none as lost. With only the final reads, an
// acknowledged record missing from the final log is unseen: loss.
func minISR1Scenario(name string, p realProfile, unclean bool) generators.Scenario {
	s := realScenario(name, p)
	// Shrink (lag), single-copy writes, fencing (broker session 6s) and an
	// election, recovery: 40s is the least that fits; ~1 minute of wall
	// time with the cluster's start and the final reads.
	s.TimeLimit = d(max(p.limit, 40*time.Second))
	s.Topic.MinInsyncReplicas = 1
	s.Topic.UncleanLeaderElection = unclean
	s.Cluster.BrokerConfigs = map[string]string{"replica.lag.time.max.ms": fmt.Sprint(minISR1Lag.Milliseconds())}
	s.Workload.Consumers = 0
	s.Nemesis = []generators.Fault{
		faultAt(s, generators.KindIsolateLeaderReplication, "", 0.1, 0.75),
		faultAt(s, generators.KindKill, "leader", 0.4, 0.8),
	}
	return s
}

// TestChaosLocalMinISR1UncleanElectionLoses: min ISR 1, unclean leader
// election on. Predicted: acknowledged writes lost (lost-write or unseen),
// the producer hop at most once — what the model expects of this config.
func TestChaosLocalMinISR1UncleanElectionLoses(t *testing.T) {
	p := requireReal(t, "local")
	s := minISR1Scenario("local-minisr1-unclean", p, true)
	if e, err := model.Expected(s.Producer.ProducerConfig, s.Topic, s.Consumer.ConsumerConfig); err != nil || e.Producer.Guarantee != model.AtMostOnce {
		t.Fatalf("the model should expect at most once of min ISR 1 + unclean election: %+v, %v", e.Producer, err)
	}
	var seen []string
	for i := range p.attempts {
		a := runReal(t, s, i)
		if why := worked(a, 50); why != "" {
			seen = append(seen, fmt.Sprintf("attempt %d proves nothing: %s; %s", i+1, why, a))
			continue
		}
		ev := readISREvidence(t, runner.ClusterDir(a.out.Dir), a.out.Scenario.Keys.Topic)
		if len(ev.shrunkToLeader) == 0 {
			seen = append(seen, fmt.Sprintf("attempt %d proves nothing: no broker log shows the ISR of %s-0 shrinking to the leader alone; %s", i+1, s.Keys.Topic, a))
			continue
		}
		if !a.out.Held {
			t.Errorf("attempt %d: the guarantee did not hold: %s", i+1, weaker(a))
		}
		if lost(a.out) > 0 {
			t.Logf("CLAIM OBSERVED (min ISR 1 + unclean election: ISR shrank to the leader, acked writes lost: %d lost-write, %d unseen) on attempt %d of %d: evidence %s",
				a.out.Result.Counts[checkers.LostWrite], a.out.Result.Counts[checkers.Unseen], i+1, p.attempts, a.out.Dir)
			if !slices.Contains([]model.Guarantee{model.AtMostOnce, model.None}, a.out.Observed.Producer) {
				t.Errorf("loss found but producer hop observed %s", a.out.Observed.Producer)
			}
			return
		}
		seen = append(seen, fmt.Sprintf("attempt %d: ISR shrank, no acked write lost: %s", i+1, a))
	}
	t.Errorf("CLAIM NOT OBSERVED (min ISR 1 + unclean election loses acked writes) in %d attempts:\n  %s", p.attempts, strings.Join(seen, "\n  "))
}

// TestChaosLocalMinISR1CleanElectionNoLoss: the same faults with unclean
// election off. Predicted: the killed single-ISR leader leaves the
// partition leaderless (sends fail or time out) until it returns, and no
// acknowledged write is lost.
func TestChaosLocalMinISR1CleanElectionNoLoss(t *testing.T) {
	p := requireFull(t, "local", "control: full profile only (make chaos-local); CI's short profile runs the unclean claim")
	s := minISR1Scenario("local-minisr1-clean", p, false)
	n := max(1, p.attempts-1)
	for i := range n {
		a := runReal(t, s, i)
		if why := worked(a, 50); why != "" {
			t.Errorf("attempt %d proves nothing: %s; %s", i+1, why, a)
			continue
		}
		ev := readISREvidence(t, runner.ClusterDir(a.out.Dir), a.out.Scenario.Keys.Topic)
		if len(ev.shrunkToLeader) == 0 {
			t.Errorf("attempt %d proves nothing: no broker log shows the ISR of %s-0 shrinking to the leader alone; %s", i+1, s.Keys.Topic, a)
			continue
		}
		for _, an := range []checkers.Anomaly{checkers.LostWrite, checkers.Unseen, checkers.Duplicate, checkers.InconsistentOffsets} {
			if c := a.out.Result.Counts[an]; c > 0 {
				t.Errorf("CLAIM BROKEN (min ISR 1, clean election: no acked write lost) on attempt %d: %d %s; %s", i+1, c, an, a)
			}
		}
		if !a.out.Held {
			t.Errorf("attempt %d: the guarantee did not hold: %s", i+1, weaker(a))
		}
		ops := a.out.Stats.OpsByType
		t.Logf("attempt %d: unavailability while the single-ISR leader was down: %d sends failed, %d unknown (info), %d ok",
			i+1, ops["send fail"], ops["send info"], ops["send ok"])
	}
	if !t.Failed() {
		t.Logf("CLAIM HELD (min ISR 1, ISR shrunk to the leader, leader killed, unclean election off: no acknowledged write lost) in %d runs", n)
	}
}

// isrEvidence is what the brokers' own logs say happened to a partition.
type isrEvidence struct {
	shrunkToLeader []string // the leader logging an ISR of itself alone
	truncatedBelow []string // a replica truncating below its high watermark: committed records erased
	other          []string // leadership changes and other truncations, for the reader
}

// isrShrink matches a leader's log line about its ISR becoming a set; the
// broker= part names the leader.
var isrShrink = regexp.MustCompile(`\[Partition (\S+) broker=(\d+)\] (?:Shrinking ISR from [\d,]+ to ([\d,]+)\.|ISR updated to ([\d,]+)\s)`)

// readISREvidence scans the broker logs (kafka-*/n*/broker.log) of dir, the
// directory of the cluster that served the run, for
// topic's partition 0: lines where the leader's ISR became the leader
// alone, and the leadership changes and truncations that followed. It logs
// what it found: the evidence the brief asks to see in the test log.
func readISREvidence(t *testing.T, dir, topic string) isrEvidence {
	t.Helper()
	tp := topic + "-0"
	logs, _ := filepath.Glob(filepath.Join(dir, "kafka-*", "n*", "broker.log"))
	if len(logs) == 0 {
		t.Errorf("no broker logs under %s", dir)
		return isrEvidence{}
	}
	var ev isrEvidence
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			t.Errorf("broker log: %v", err)
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := sc.Text()
			if !strings.Contains(line, tp) && !strings.Contains(line, "name='"+topic+"'") {
				continue
			}
			short := filepath.Base(filepath.Dir(path)) + ": " + clip(line, 260)
			if m := isrShrink.FindStringSubmatch(line); m != nil && m[1] == tp {
				if isr := m[3] + m[4]; isr == m[2] {
					ev.shrunkToLeader = append(ev.shrunkToLeader, short)
				}
				continue
			}
			if strings.Contains(line, "below high watermark") {
				ev.truncatedBelow = append(ev.truncatedBelow, short)
				continue
			}
			if strings.Contains(line, "starts at leader epoch") || strings.Contains(line, "Truncating to") ||
				strings.Contains(strings.ToLower(line), "unclean") || strings.Contains(line, "Shrinking ISR") {
				ev.other = append(ev.other, short)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Errorf("broker log %s: %v", path, err)
		}
	}
	t.Logf("BROKER-LOG EVIDENCE for %s in %s:\n  ISR shrunk to the leader alone (%d):\n    %s\n  truncated below the high watermark (%d):\n    %s\n  leadership and truncation (%d, first 20):\n    %s",
		tp, dir, len(ev.shrunkToLeader), strings.Join(ev.shrunkToLeader, "\n    "),
		len(ev.truncatedBelow), strings.Join(ev.truncatedBelow, "\n    "),
		len(ev.other), strings.Join(ev.other[:min(20, len(ev.other))], "\n    "))
	return ev
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
