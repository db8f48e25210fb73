package kafkachaos_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// stallScenario is two group consumers committing after processing with
// max.poll.interval maxPoll (session 1 s, below it as librdkafka wants),
// one of them stalled for stall from 1.5 s: its application stops between
// a processed poll and its commit while librdkafka goes on heartbeating.
func stallScenario(s generators.Scenario, maxPoll, stall time.Duration) generators.Scenario {
	s.Consumer.CommitStrategy = model.CommitAfterProcessing
	s.Consumer.SessionTimeout, s.Consumer.MaxPollInterval = d(time.Second), d(maxPoll)
	s.Workload.Consumers, s.Workload.Mode, s.Workload.Rate = 2, generators.ModeGroup, 300
	s.Nemesis = []generators.Fault{{Kind: generators.KindStallConsumer, Start: d(1500 * time.Millisecond), Duration: d(stall)}}
	return s
}

// stallSeen is what a run of stallScenario shows of its stall: the
// fault's own account (its stop op's detail) and, from the consumers' ops,
// whether a poll of the stalled process after it reported librdkafka's
// MAX_POLL_EXCEEDED, and which rebalances followed.
type stallSeen struct {
	detail struct {
		Process    int64  `json:"process"`
		StalledMs  int64  `json:"stalled-ms"`
		MaxPollMs  int64  `json:"max-poll-interval-ms"`
		Evicted    bool   `json:"evicted"`
		Commit     string `json:"commit-on-waking"`
		Held       string `json:"held"`
		ErrorShown string `json:"error"`
	}
	maxPollOp *histories.Op
	revokedOp *histories.Op // its first op from maxPollOp on whose rebalance revoked keys
	assigned  bool          // a poll of it was assigned keys once evicted
}

func readStall(t *testing.T, out runner.Outcome) stallSeen {
	t.Helper()
	ops, _, err := histories.ReadFile(filepath.Join(out.Dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	var seen stallSeen
	started, stopped := false, false
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Process == histories.NemesisProcess && op.F == "stall-consumer-start" && op.Type != histories.Invoke:
			started = true
			seen.detail = nemesisDetail(t, op, seen.detail)
		case op.Process == histories.NemesisProcess && op.F == "stall-consumer-stop" && op.Type != histories.Invoke:
			stopped = true
			seen.detail = nemesisDetail(t, op, seen.detail)
		case !started || op.Process != seen.detail.Process || op.Type == histories.Invoke:
		default:
			if op.Extra["max-poll-exceeded"] != nil && seen.maxPollOp == nil {
				seen.maxPollOp = op
			}
			if seen.maxPollOp == nil || op.Rebalance == nil {
				break
			}
			if len(op.Rebalance.Revoked) > 0 && seen.revokedOp == nil {
				seen.revokedOp = op
			}
			seen.assigned = seen.assigned || len(op.Rebalance.Assigned) > 0
		}
	}
	if !stopped {
		t.Fatalf("no stall-consumer-stop op: the fault never healed (%+v)", out.Stats.Faults)
	}
	return seen
}

// nemesisDetail is the detail of nemesis op op, over into.
func nemesisDetail[T any](t *testing.T, op *histories.Op, into T) T {
	t.Helper()
	var v struct {
		Detail json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal(op.Value, &v); err != nil || json.Unmarshal(v.Detail, &into) != nil {
		t.Fatalf("nemesis op %d: %s: %v", op.Index, op.Value, err)
	}
	return into
}

// checkStallRun checks what every stall run must show: the fault fired
// once and healed, the consumer group did its work, and no delivery was
// lost (the verdict, at least once, is run's to check).
func checkStallRun(t *testing.T, out runner.Outcome) {
	t.Helper()
	mustHaveWorked(t, out, 10, "poll")
	if len(out.Stats.Faults) != 1 || out.Stats.Faults[0].Fired != 1 || len(out.Stats.Faults[0].Errors) > 0 {
		t.Errorf("stall-consumer did not fire once and heal: %+v", out.Stats.Faults)
	}
	if n := out.Result.Counts[checkers.LostDelivery]; n > 0 {
		t.Errorf("%d lost deliveries: a stall must not lose what the group committed", n)
	}
}

// checkEvicted checks a run whose stall outlasted max.poll.interval: the
// fault saw the eviction, and so does the history: the stalled process's
// first poll after it reports MAX_POLL_EXCEEDED, that poll or a later one
// revokes its keys, and one is assigned keys again (it rejoined); a commit it made
// on waking is recorded info, with the error Kafka answered.
func checkEvicted(t *testing.T, out runner.Outcome) stallSeen {
	t.Helper()
	seen := readStall(t, out)
	switch {
	case !seen.detail.Evicted:
		t.Errorf("stalled %d ms past max.poll.interval %d ms, and the fault saw no eviction: %+v", seen.detail.StalledMs, seen.detail.MaxPollMs, seen.detail)
	case seen.maxPollOp == nil:
		t.Errorf("no poll op of process %d after the stall reports max-poll-exceeded", seen.detail.Process)
	case seen.revokedOp == nil:
		// the revocation usually comes in the same poll op as the error;
		// a loaded CI run under KIP-848 saw the error alone in its op (the
		// revocation then waits on librdkafka's leave, a request: likely
		// what was late; not seen here in 40 runs under load)
		t.Errorf("poll op %d saw MAX_POLL_EXCEEDED, and no poll of process %d from it on revoked keys", seen.maxPollOp.Index, seen.detail.Process)
	case !seen.assigned:
		t.Errorf("process %d never rejoined (no keys assigned after the stall)", seen.detail.Process)
	case seen.detail.Held == client.StallBeforeCommit && !strings.HasPrefix(seen.detail.Commit, string(histories.Info)+": "):
		// the evicted member is no member: Kafka refuses its commit
		// (UNKNOWN_MEMBER_ID: kfake always, real brokers while the group
		// has another member), and a refusal after librdkafka's retries
		// proves nothing
		t.Errorf("the commit made on waking, evicted, is %q: want info with Kafka's error", seen.detail.Commit)
	}
	return seen
}

// TestChaosConsumerStall: a consumer whose processing stalls for twice
// max.poll.interval while librdkafka heartbeats is evicted by librdkafka
// itself (not by its session), and its first poll after the stall shows it
// (MAX_POLL_EXCEEDED, its assignment revoked) before it rejoins. What it had
// processed and not committed is read again by the group: duplicates,
// allowed at least once; nothing lost.
func TestChaosConsumerStall(t *testing.T) {
	parallelOnEmbedded(t)
	out := runKept(t, stallScenario(base("consumer-stall", 6500*time.Millisecond), 2*time.Second, 4*time.Second))
	checkStallRun(t, out)
	seen := checkEvicted(t, out)
	t.Logf("STALL: %+v; evicted op %v; %d duplicate deliveries", seen.detail, opIndex(seen.maxPollOp), out.Result.Counts[checkers.DuplicateDelivery])
}

// TestChaosConsumerStallProcesses: the same stall of a consumer in a
// worker process of its own (workload.client-processes), asked over the
// wire; the process and its librdkafka run on (unlike pause-client).
func TestChaosConsumerStallProcesses(t *testing.T) {
	parallelOnEmbedded(t)
	s := stallScenario(base("consumer-stall-processes", 7*time.Second), 2*time.Second, 4*time.Second)
	s.Workload.ClientProcesses = true
	s.Nemesis[0].Start = d(2 * time.Second) // the worker processes start first
	out := runKept(t, s)
	checkStallRun(t, out)
	seen := checkEvicted(t, out)
	t.Logf("STALL IN A PROCESS: %+v; evicted op %v; %d duplicate deliveries", seen.detail, opIndex(seen.maxPollOp), out.Result.Counts[checkers.DuplicateDelivery])
}

// TestChaosConsumerStallShort is the control: a stall shorter than
// max.poll.interval evicts nobody, and the consumer goes on as it was.
func TestChaosConsumerStallShort(t *testing.T) {
	parallelOnEmbedded(t)
	out := runKept(t, stallScenario(base("consumer-stall-short", 5*time.Second), 3*time.Second, time.Second))
	checkStallRun(t, out)
	seen := readStall(t, out)
	if seen.detail.Evicted || seen.maxPollOp != nil {
		t.Errorf("a stall of %d ms under max.poll.interval %d ms evicted the consumer: %+v, op %v",
			seen.detail.StalledMs, seen.detail.MaxPollMs, seen.detail, opIndex(seen.maxPollOp))
	}
	// the stall begins when the consumer reaches its hold point and ends
	// with the window: on loaded cores the consumer comes late (433 ms of
	// a 1 s window seen), so the floor only says a stall happened
	if seen.detail.StalledMs < 200 {
		t.Errorf("stalled %d ms, want most of its 1 s window", seen.detail.StalledMs)
	}
	t.Logf("STALL CONTROL: %+v", seen.detail)
}

func opIndex(op *histories.Op) any {
	if op == nil {
		return "none"
	}
	return op.Index
}
