package kafkachaos_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/cluster/docker"
	"github.com/kafkachaos/kafkachaos/cluster/local"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
	"github.com/kafkachaos/kafkachaos/workers/proc"
	"pgregory.net/rapid"
)

// The suite is configured by flags or, for make and CI, the environment.
var (
	flagCluster   = flag.String("kafkachaos.cluster", envOr("KAFKACHAOS_CLUSTER", "embedded"), "cluster provider (env KAFKACHAOS_CLUSTER)")
	flagTimeLimit = flag.Duration("kafkachaos.time-limit", envDuration("KAFKACHAOS_TIME_LIMIT", 0), "each run's time limit; 0 keeps each test's own (env KAFKACHAOS_TIME_LIMIT)")
	flagSeed      = flag.Int64("kafkachaos.seed", envInt("KAFKACHAOS_SEED", 1), "seed of the runs' own choices (env KAFKACHAOS_SEED)")
	flagRuns      = flag.String("kafkachaos.runs", os.Getenv("KAFKACHAOS_RUNS"), "runs root (env KAFKACHAOS_RUNS; default runs/ here)")
	flagKeep      = flag.Bool("kafkachaos.keep", os.Getenv("KAFKACHAOS_KEEP") != "" && os.Getenv("KAFKACHAOS_KEEP") != "0", "keep every run directory, not only failed ones (env KAFKACHAOS_KEEP)")
)

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func envDuration(k string, def time.Duration) time.Duration {
	d, err := time.ParseDuration(os.Getenv(k))
	if err != nil {
		return def
	}
	return d
}

func envInt(k string, def int64) int64 {
	n, err := strconv.ParseInt(os.Getenv(k), 10, 64)
	if err != nil {
		return def
	}
	return n
}

func d(x time.Duration) generators.Duration { return generators.Duration(x) }

// parallelOnEmbedded lets a test run beside the package's others on the
// embedded cluster, whose runs wait on their time limits and timers far
// more than they compute (the whole unit pass used about a third of two
// cores run one test at a time); each run has a cluster of its own. Real
// clusters stay one run at a time: their runs share the suite's brokers
// and the machine's cores.
func parallelOnEmbedded(t *testing.T) {
	if *flagCluster == "embedded" {
		t.Parallel()
	}
}

// base is a safe configuration: idempotent producer, acks=all on three
// replicas, one group consumer committing after processing, no faults.
// Each test breaks one thing.
func base(name string, limit time.Duration) generators.Scenario {
	if *flagTimeLimit > 0 {
		limit = *flagTimeLimit
	}
	s := generators.Baseline(name, *flagCluster, limit)
	s.Seed = *flagSeed
	s.Workload.Mode, s.Workload.Group, s.Workload.Rate = generators.ModeAssign, "chaos", 400
	return s
}

// replay is the command that replays a saved scenario from this directory.
func replay(scenarioPath string) string {
	return "go run ./cmd/kafkachaos run --scenario " + scenarioPath
}

// window is the part of the run a fault covers: from 10% to 90% of it.
func window(s generators.Scenario) (start, dur generators.Duration) {
	return s.TimeLimit / 10, s.TimeLimit * 8 / 10
}

// run runs s and fails the test on a harness error; it logs where the run
// directory is and what was found.
func run(t *testing.T, s generators.Scenario) runner.Outcome {
	t.Helper()
	return runKeeping(t, s, *flagKeep)
}

// runKeeping is run with the run directory kept when keep says so (tests
// run side by side: the choice is an argument, never the shared flag).
func runKeeping(t *testing.T, s generators.Scenario, keep bool) runner.Outcome {
	t.Helper()
	skipUninjectable(t, s)
	out, err := runner.Run(context.Background(), s, runner.Options{RunsDir: *flagRuns, TestName: t.Name(), Keep: keep,
		Replay: replay, Reuse: suiteClusters})
	where := out.Dir
	if !out.Kept {
		where += " (removed: the guarantee held; -kafkachaos.keep or KAFKACHAOS_KEEP=1 keeps it)"
	}
	if err != nil {
		t.Fatalf("run dir %s: %v", where, err)
	}
	t.Logf("run dir %s", where)
	t.Logf("expected %s, observed %s (producer %s, consumer %s); anomalies %v; %d ops, faults fired %d, crashes %d",
		out.Expected.EndToEnd, out.Observed.EndToEnd, out.Observed.Producer, out.Observed.Consumer,
		out.Result.Counts, out.Stats.Ops, out.Stats.FaultsFired, out.Stats.Crashes)
	if !out.Held {
		t.Errorf("observed %s does not satisfy expected %s (%s); replay: %s", out.Observed.EndToEnd, out.Expected.EndToEnd,
			strings.Join(out.Expected.Breaks(out.Observed), "; "), out.Scenario.Replay)
	}
	return out
}

// skipUninjectable skips a test whose faults the selected cluster cannot
// inject: request faults (a write applied, then its acknowledgement lost) and
// leader moves exist only where the harness answers the requests itself, in
// the embedded cluster. Real brokers get their own experiments
// (run_local_test.go, run_docker_test.go). runner.Injectable asks before the
// cluster starts, as runner.Run does.
func skipUninjectable(t *testing.T, s generators.Scenario) {
	t.Helper()
	prov, err := runner.DefaultProviders().New(s.Cluster.Provider)
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Injectable(prov, s); err != nil {
		t.Skipf("%v: the %s cluster cannot inject it", err, prov.Name())
	}
}

// runKept is run with the run directory kept for the test to read; it is
// removed at the end unless the run failed or -kafkachaos.keep says keep.
func runKept(t *testing.T, s generators.Scenario) runner.Outcome {
	t.Helper()
	out := runKeeping(t, s, true)
	t.Cleanup(func() {
		if !*flagKeep && !t.Failed() {
			os.RemoveAll(out.Dir)
			os.Remove(filepath.Dir(out.Dir))
		}
	})
	return out
}

// copiedExactlyOnce checks the copy end to end from the history's final
// reads: for each input key k, the values on its output key (count+k) are
// exactly the input values below the copiers' committed offset, each once.
// It returns how many records were copied.
func copiedExactlyOnce(t *testing.T, out runner.Outcome, count int) int {
	t.Helper()
	ops, _, err := histories.ReadFile(filepath.Join(out.Dir, "history.jsonl"), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	final := int64(-1) // the final reads are the last process
	committed := map[int64]int64{}
	var unknown []histories.Op // info txns: CommitTransaction's outcome unknown
	commit := func(op histories.Op) {
		for _, m := range op.Mops {
			for k, o := range m.Offsets {
				committed[k] = max(committed[k], o)
			}
		}
	}
	for _, op := range ops {
		final = max(final, op.Process)
		if op.F == histories.FTxn && op.Type == histories.OK {
			commit(op)
		}
		if op.F == histories.FTxn && op.Type == histories.Info {
			unknown = append(unknown, op)
		}
	}
	logs := map[int64]map[int64]int64{} // key -> offset -> value, as the final reads saw it
	for _, op := range ops {
		if op.Process != final || op.F != histories.FPoll || op.Type != histories.OK {
			continue
		}
		for _, m := range op.Mops {
			for k, rs := range m.Records {
				if logs[k] == nil {
					logs[k] = map[int64]int64{}
				}
				for _, r := range rs {
					logs[k][r.Offset] = r.Value
				}
			}
		}
	}
	// A transaction recorded info (its commit timed out, seen in CI) may
	// have committed: it is all or nothing, so one whose sends the final
	// reads show committed its offsets too.
	for _, op := range unknown {
		if slices.ContainsFunc(op.Mops, func(m histories.Mop) bool {
			return m.F == histories.MSend && slices.Contains(slices.Collect(maps.Values(logs[m.Key])), m.Value)
		}) {
			commit(op)
		}
	}
	total := 0
	for k := range int64(count) {
		want := map[int64]int{} // copies (histories.CopyValue) of the committed input
		for o, v := range logs[k] {
			if o < committed[k] {
				c, err := histories.CopyValue(v, o)
				if err != nil {
					t.Fatal(err)
				}
				want[c]++
			}
		}
		got := map[int64]int{}
		for _, v := range logs[int64(count)+k] {
			got[v]++
		}
		for v, n := range got {
			if n != 1 || want[v] != 1 {
				t.Errorf("key %d: copy %d is %d times in the output, %d times among the committed input", k, v, n, want[v])
			}
		}
		for v := range want {
			if got[v] == 0 {
				t.Errorf("key %d: the copy %d of an input record below the committed offset %d is not in the output", k, v, committed[k])
			}
		}
		total += len(got)
	}
	if total == 0 {
		t.Error("nothing was copied")
	}
	return total
}

// mustHaveWorked fails a test whose run proves nothing: no faults, or too
// few completed ops.
func mustHaveWorked(t *testing.T, out runner.Outcome, minOK int64, what string) {
	t.Helper()
	if out.Stats.FaultsFired == 0 {
		t.Errorf("no fault fired: the run proves nothing (%+v)", out.Stats.Faults)
	}
	if n := out.Stats.OpsByType[what+" ok"]; n < minOK {
		t.Errorf("%d %s ops completed ok, want at least %d", n, what, minOK)
	}
}

func hits(out runner.Outcome) int64 {
	var n int64
	for _, f := range out.Stats.Faults {
		n += f.Hits
	}
	return n
}

// lostAcks is the fault that makes a retrying producer write twice: produce
// requests are applied, then answered REQUEST_TIMED_OUT.
func lostAcks(s generators.Scenario) []generators.Fault {
	start, dur := window(s)
	return []generators.Fault{{Kind: generators.KindLostAck, Start: start, Duration: dur,
		Params: generators.FaultParams{Probability: 0.3}}}
}

// runLosingAcks runs s under lostAcks and fails a run that lost no
// acknowledgement or completed too few sends.
func runLosingAcks(t *testing.T, s generators.Scenario) runner.Outcome {
	t.Helper()
	s.Nemesis = lostAcks(s)
	out := run(t, s)
	mustHaveWorked(t, out, 50, "send")
	if hits(out) == 0 {
		t.Errorf("no acknowledgement was lost")
	}
	return out
}

// wantHop fails the test when a hop showed another guarantee than want.
func wantHop(t *testing.T, hop string, got, want model.Guarantee) {
	t.Helper()
	if got != want {
		t.Errorf("%s hop observed %s, want %s", hop, got, want)
	}
}

func TestChaosProducerRetriesWithoutIdempotenceDuplicate(t *testing.T) {
	parallelOnEmbedded(t)
	s := base("producer-retries-no-idempotence", 3*time.Second)
	s.Producer.EnableIdempotence = false
	s.Producer.MaxInFlight = 1 // duplicates, not reordering, are the point
	out := runLosingAcks(t, s)
	if out.Result.Counts[checkers.Duplicate] == 0 {
		t.Errorf("no duplicate found after %d lost acknowledgements", hits(out))
	}
	wantHop(t, "producer", out.Observed.Producer, model.AtLeastOnce)
	t.Logf("%d lost acknowledgements -> %d duplicates", hits(out), out.Result.Counts[checkers.Duplicate])
}

func TestChaosProducerIdempotentNoDuplicates(t *testing.T) {
	parallelOnEmbedded(t)
	out := runLosingAcks(t, base("producer-idempotent", 3*time.Second))
	if n := out.Result.Counts[checkers.Duplicate]; n != 0 {
		t.Errorf("idempotent producer wrote %d duplicates", n)
	}
	wantHop(t, "producer", out.Observed.Producer, model.ExactlyOnce)
	t.Logf("%d lost acknowledgements -> no duplicates", hits(out))
}

// runCrashingConsumers runs a 5s group of consumers committing by strategy
// whose members crash at point every 400ms (a new member, new process,
// replaces each), and fails a run in which none crashed or too few polls
// completed; with changes the scenario (e.g. names a client).
func runCrashingConsumers(t *testing.T, strategy model.CommitStrategy, point string, with ...func(*generators.Scenario)) runner.Outcome {
	t.Helper()
	s := base("consumer-"+string(strategy), 5*time.Second)
	s.Consumer.CommitStrategy = strategy
	s.Workload.Consumers, s.Workload.Mode = 2, generators.ModeGroup
	s.Workload.Rate = 300
	start, dur := window(s)
	s.Nemesis = []generators.Fault{{Kind: generators.KindCrashConsumer, Start: start, Duration: dur,
		Params: generators.FaultParams{Point: point, Every: d(400 * time.Millisecond)}}}
	for _, w := range with {
		w(&s)
	}
	out := run(t, s)
	mustHaveWorked(t, out, 5, "poll")
	if out.Stats.Crashes == 0 {
		t.Errorf("no consumer crashed")
	}
	return out
}

func TestChaosConsumerCommitBeforeProcessingLoses(t *testing.T) {
	parallelOnEmbedded(t)
	out := runCrashingConsumers(t, model.CommitBeforeProcessing, generators.CrashAfterCommit)
	if out.Result.Counts[checkers.LostDelivery] == 0 {
		t.Errorf("no lost delivery after %d crashes between commit and processing", out.Stats.Crashes)
	}
	wantHop(t, "consumer", out.Observed.Consumer, model.AtMostOnce)
	t.Logf("%d crashes -> %d lost deliveries", out.Stats.Crashes, out.Result.Counts[checkers.LostDelivery])
}

func TestChaosConsumerCommitAfterProcessingRedelivers(t *testing.T) {
	parallelOnEmbedded(t)
	out := runCrashingConsumers(t, model.CommitAfterProcessing, generators.CrashBeforeCommit)
	if out.Result.Counts[checkers.DuplicateDelivery] == 0 {
		t.Errorf("no duplicate delivery after %d crashes between processing and commit", out.Stats.Crashes)
	}
	wantHop(t, "consumer", out.Observed.Consumer, model.AtLeastOnce)
	t.Logf("%d crashes -> %d duplicate deliveries", out.Stats.Crashes, out.Result.Counts[checkers.DuplicateDelivery])
}

// Auto-commit promises nothing (expected none); its at-most-once window is
// a member crashing after librdkafka's background commit covered records it
// had received but not yet processed: the next member starts past them.
func TestChaosConsumerAutoCommitLoses(t *testing.T) {
	parallelOnEmbedded(t)
	out := runCrashingConsumers(t, model.CommitAuto, generators.CrashAfterCommit)
	if out.Stats.OpsByType["commit ok"] == 0 {
		t.Errorf("no auto-commit was recorded")
	}
	if out.Result.Counts[checkers.LostDelivery] == 0 {
		t.Errorf("no lost delivery after %d crashes past an auto-commit", out.Stats.Crashes)
	}
	if g := out.Observed.Consumer; g != model.AtMostOnce && g != model.None {
		t.Errorf("consumer hop observed %s, want at-most-once or weaker", g)
	}
	t.Logf("auto-commit under %d crashes showed %s: %d lost deliveries, %d duplicate deliveries",
		out.Stats.Crashes, out.Observed.Consumer, out.Result.Counts[checkers.LostDelivery], out.Result.Counts[checkers.DuplicateDelivery])
}

// Consume-transform-produce with transactions, read_committed and
// sendOffsetsToTransaction, under random aborts and copier crashes: every
// input record must land in the output exactly once (a double copy is a
// duplicate on an output key, a skipped one a lost-delivery of the copiers'
// group) and no aborted record may be read (G1a).
func TestChaosTransactionalCopyExactlyOnce(t *testing.T) {
	parallelOnEmbedded(t)
	s := base("copy-transactional", 5*time.Second)
	s = s.TransactionalCopy(2, 0.3, 300)
	start, dur := window(s)
	s.Nemesis = []generators.Fault{{Kind: generators.KindCrashProducer, Start: start, Duration: dur,
		Params: generators.FaultParams{Every: d(700 * time.Millisecond)}}}
	out := runKept(t, s)
	mustHaveWorked(t, out, 20, "txn")
	copied := copiedExactlyOnce(t, out, s.Keys.Count)
	if out.Expected.EndToEnd != model.ExactlyOnce {
		t.Errorf("expected %s, want exactly-once: %v", out.Expected.EndToEnd, out.Expected.Reasons())
	}
	if out.Observed.EndToEnd != model.ExactlyOnce {
		t.Errorf("observed %s, want exactly-once", out.Observed.EndToEnd)
	}
	for _, a := range []checkers.Anomaly{checkers.G1a, checkers.Duplicate, checkers.DuplicateDelivery, checkers.LostDelivery, checkers.Unseen, checkers.LostWrite} {
		if n := out.Result.Counts[a]; n != 0 {
			t.Errorf("%d %s", n, a)
		}
	}
	if out.Stats.OpsByType["txn fail"] == 0 {
		t.Errorf("no transaction was aborted: %v", out.Stats.OpsByType)
	}
	if out.Stats.Crashes == 0 {
		t.Errorf("no copier or producer crashed")
	}
	t.Logf("%d committed txns, %d aborted, %d crashes: %d input records copied exactly once, no aborted read",
		out.Stats.OpsByType["txn ok"], out.Stats.OpsByType["txn fail"], out.Stats.Crashes, copied)
}

// TestChaosRandom draws a few short scenarios on the selected cluster, from
// the fault kinds it supports, each with at least one fault that can take
// effect in it; each must run without a harness error, fire every fault it
// scheduled (a draw whose faults never acted proves nothing) and show a
// guarantee at least as strong as the one Kafka documents for its
// configuration. A failure
// shrinks to a small schedule, keeps its run directory and prints the
// replay command. -rapid.checks sets how many (default: the profile's).
// The docker profile's draw is TestChaosDockerRandom, which make's -run
// ChaosDocker selects.
func TestChaosRandom(t *testing.T) {
	parallelOnEmbedded(t)
	if *flagCluster == "docker" {
		t.Skip("on docker the random draw is TestChaosDockerRandom")
	}
	chaosRandom(t, randomProfileFor(t, *flagCluster))
}

// randomProfile is how TestChaosRandom draws on one provider.
type randomProfile struct {
	space generators.Space
	draws int  // the default of -rapid.checks
	keep  bool // every run directory, not only failed ones
}

// randomProfileFor is the embedded cluster's 20 draws of 1.5-3s each
// (FastSpace: about 5-6s a draw with the cluster's start, check and
// report, so about two minutes), or on a real cluster (skipped unless
// selected and runnable, see requireReal) one draw of 8-15s: every draw
// starts a cluster, which takes up to a minute on two loaded cores, and
// its directory is kept as evidence. KAFKACHAOS_DRAWS sets the number of
// draws, -rapid.checks overrides it; -kafkachaos.time-limit caps the
// draws' time limits.
func randomProfileFor(t *testing.T, provider string) randomProfile {
	t.Helper()
	p := randomProfile{space: generators.FastSpace(), draws: 20, keep: *flagKeep}
	if provider != "embedded" {
		requireReal(t, provider)
		p.space = generators.ShortSpace()
		prov, err := runner.DefaultProviders().New(provider)
		if err != nil {
			t.Fatal(err)
		}
		// what this machine runs: no clock or disk kinds without their tools
		p.space.Provider, p.space.Kinds = provider, runner.DrawableKinds(prov)
		// One fault, which must fire and heal: a second one would
		// wait behind a kill's heal — a JVM or container restart and the
		// cluster's health, 10-30 s on two cores, longer than the run — and
		// never fire (a CI run's docker draw: kill at 10 ms healed at 26.9 s
		// of a 14 s run, its second kill's window long past). Draws of several
		// faults on real brokers are explore's, which counts that as an error.
		p.space.MinFaults, p.space.MaxFaults = 1, 1
		p.space.MinTime, p.space.MaxTime = 8*time.Second, 15*time.Second
		p.draws, p.keep = 1, true
	}
	if *flagTimeLimit > 0 {
		p.space.MaxTime = min(p.space.MaxTime, *flagTimeLimit)
		p.space.MinTime = min(p.space.MinTime, p.space.MaxTime)
	}
	p.draws = drawsFromEnv(t, p.draws)
	return p
}

// drawsEnv sets how many scenarios TestChaosRandom draws.
const drawsEnv = "KAFKACHAOS_DRAWS"

// drawsFromEnv is drawsEnv's number of draws, def when it is unset.
func drawsFromEnv(t *testing.T, def int) int {
	t.Helper()
	v := os.Getenv(drawsEnv)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a number of draws of at least 1", drawsEnv, v)
	}
	return n
}

func chaosRandom(t *testing.T, p randomProfile) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		if err := flag.Set("rapid.checks", strconv.Itoa(p.draws)); err != nil {
			t.Fatal(err)
		}
		defer flag.Set("rapid.checks", f.DefValue)
	}
	var seen drawsSeen
	defer func() { t.Log(seen.summary()) }()
	rapid.Check(t, func(rt *rapid.T) {
		s := generators.ScenarioGenIn(p.space).Draw(rt, "scenario")
		began := time.Now()
		out, err := runner.Run(context.Background(), s, runner.Options{RunsDir: *flagRuns, TestName: t.Name(), Keep: p.keep, Replay: replay})
		if err != nil {
			rt.Fatalf("run dir %s: %v; faults %s; replay: %s", out.Dir, err, faultSummary(out), out.Scenario.Replay)
		}
		seen.add(s, out.Stats.FaultsFired)
		t.Logf("%s (%s limit, took %s): %s; faults %s (fired %d, %s), expected %s, observed %s, anomalies %v, run dir %s (kept %v)",
			s.Name, s.TimeLimit, time.Since(began).Round(time.Millisecond), configText(s), faultSummary(out),
			out.Stats.FaultsFired, healText(s, out.Stats.Faults),
			out.Expected.EndToEnd, out.Observed.EndToEnd, out.Result.Counts, out.Dir, out.Kept)
		if err := faultsTookEffect(s, out.Stats.Faults); err != nil {
			rt.Fatalf("%v\nrun dir: %s\nreplay: %s", err, out.Dir, out.Scenario.Replay)
		}
		if !out.Held {
			rt.Fatalf("observed %s does not satisfy expected %s (anomalies %v)\nrun dir: %s\nreplay: %s",
				out.Observed.EndToEnd, out.Expected.EndToEnd, out.Result.Counts, out.Dir, out.Scenario.Replay)
		}
	})
}

// healText says how many of s's window faults (those that hold a state
// open and must undo it) healed: a heal that failed is a harness error
// faultsTookEffect reports, so a passing draw shows "healed k of k".
func healText(s generators.Scenario, stats []runner.FaultStat) string {
	windows, healed := 0, 0
	for i, f := range s.Nemesis {
		if generators.Instantaneous(f.Kind) || i >= len(stats) {
			continue
		}
		windows++
		if !slices.ContainsFunc(stats[i].Errors, func(e string) bool { return strings.HasPrefix(e, "heal: ") }) {
			healed++
		}
	}
	return fmt.Sprintf("healed %d of %d windows", healed, windows)
}

// configText is the client and topic configuration a draw covers, in the
// seed table's terms, so the log says which rows the draws visited.
func configText(s generators.Scenario) string {
	return strings.Join(configCells(s), " ")
}

func configCells(s generators.Scenario) []string {
	p, c := s.Producer, s.Consumer
	return []string{
		fmt.Sprintf("acks=%s", p.Acks), fmt.Sprintf("retries=%s", retriesText(p.Retries)),
		fmt.Sprintf("idempotent=%v", p.EnableIdempotence), fmt.Sprintf("transactions=%v", p.TransactionalID != ""),
		fmt.Sprintf("rf=%d", s.Topic.ReplicationFactor), fmt.Sprintf("min-isr=%d", s.Topic.MinInsyncReplicas),
		fmt.Sprintf("unclean=%v", s.Topic.UncleanLeaderElection), fmt.Sprintf("mode=%s", s.Workload.Mode),
		fmt.Sprintf("commit=%s", c.CommitStrategy), fmt.Sprintf("isolation=%s", c.IsolationLevel),
	}
}

func retriesText(n int) string {
	if n == math.MaxInt32 {
		return "max"
	}
	return strconv.Itoa(n)
}

// drawsSeen tallies what TestChaosRandom's draws covered: faults fired per
// draw and the configuration cells visited.
type drawsSeen struct {
	fired []int64
	cells map[string]int
}

func (d *drawsSeen) add(s generators.Scenario, fired int64) {
	d.fired = append(d.fired, fired)
	if d.cells == nil {
		d.cells = map[string]int{}
	}
	for _, c := range configCells(s) {
		d.cells[c]++
	}
}

// summary is the tally: draws, faults fired per draw (min and median) and
// how many draws visited each configuration cell.
func (d *drawsSeen) summary() string {
	if len(d.fired) == 0 {
		return "no draw ran to its end"
	}
	f := slices.Sorted(slices.Values(d.fired))
	cells := slices.Sorted(maps.Keys(d.cells))
	for i, c := range cells {
		cells[i] = fmt.Sprintf("%s×%d", c, d.cells[c])
	}
	// rapid re-runs draws while it shrinks a failure: those count too
	return fmt.Sprintf("%d draws ran (with any shrink re-runs); faults fired per draw: min %d, median %d, max %d; configurations: %s",
		len(f), f[0], f[len(f)/2], f[len(f)-1], strings.Join(cells, " "))
}

// faultsTookEffect says which of s's faults never fired or failed to heal:
// the generators draw only faults that can take effect in their scenario,
// so one that did not is a harness or generator bug, and its run proves
// nothing about that fault. Two exceptions: a requested client crash waits
// for its worker to reach the crash point, and on loaded cores the run may
// end first (the history says so); and a fault whose steps the schedule
// never reached before the run's end (crowdedOut). Such a fault is not
// counted, and the draw must still have fired another. A failed heal is a harness error
// too; it is checked here as well in case one hid behind a run that ended
// anyway.
func faultsTookEffect(s generators.Scenario, stats []runner.FaultStat) error {
	if len(stats) != len(s.Nemesis) {
		return fmt.Errorf("%d fault stats for %d scheduled faults", len(stats), len(s.Nemesis))
	}
	var errs []error
	var fired int64
	for i, f := range stats {
		fired += f.Fired
		if f.Fired == 0 && !crashLandedTooLate(f.Errors) && !crowdedOut(f) {
			errs = append(errs, fmt.Errorf("nemesis[%d] %s never fired (errors %v)", i, f.Kind, f.Errors))
		}
		for _, e := range f.Errors {
			if strings.HasPrefix(e, "heal: ") {
				errs = append(errs, fmt.Errorf("nemesis[%d] %s failed to heal: %s", i, f.Kind, e))
			}
		}
	}
	if fired == 0 && len(s.Nemesis) > 0 {
		errs = append(errs, errors.New("no fault fired"))
	}
	return errors.Join(errs...)
}

// crowdedOut reports whether a fault that never fired never started
// either, with no error: its steps fell due while the schedule was still
// healing an earlier fault (a restarted broker on loaded cores) and the
// run ended first, as its stats say (NeverRan). It proves nothing about
// the fault, and the draw must still have fired another.
func crowdedOut(f runner.FaultStat) bool {
	return len(f.Errors) == 0 && len(f.NeverRan) > 0
}

// crashLandedTooLate reports whether a fault that never fired has only
// errors saying the run ended before its requested crash happened, each
// awaited at most lateCrashGrace: requested so close to the end that its
// worker, on loaded cores, did not reach the crash point in time. A crash
// awaited longer did not land where it should have, and fails the draw.
func crashLandedTooLate(errs []string) bool {
	const prefix = "the run ended before the requested crash happened (awaited "
	for _, e := range errs {
		_, rest, ok := strings.Cut(e, prefix)
		if !ok {
			return false
		}
		waited, err := time.ParseDuration(strings.TrimSuffix(rest, ")"))
		if err != nil || waited > lateCrashGrace {
			return false
		}
	}
	return len(errs) > 0
}

// lateCrashGrace is how long a requested crash may wait at the end of a
// run and still be forgiven: about a poll-and-commit cycle of a consumer on
// two loaded cores (a CI run's crash requested 1 s before the end of a
// 2.8 s run did not land).
const lateCrashGrace = 2 * time.Second

// childRunsEnv, when set, makes this test binary a child that runs one long
// scenario under that runs root until it is killed (see
// TestChaosKilledRunLeavesReadableHistory).
const childRunsEnv = "KAFKACHAOS_CHILD_RUNS"

func TestMain(m *testing.M) {
	proc.ServeIfChild() // a worker process of a client-processes run
	if root := os.Getenv(childRunsEnv); root != "" {
		s := base("killed", time.Minute)
		s.TimeLimit = d(time.Minute)
		s.Workload.Consumers, s.Workload.Mode = 1, generators.ModeGroup
		_, err := runner.Run(context.Background(), s, runner.Options{RunsDir: root, TestName: "killed"})
		if err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	}
	flag.Parse()
	suiteClusters = sharedClusters()
	code := m.Run()
	if suiteClusters != nil {
		if err := suiteClusters.Close(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the suite's shared cluster:", err)
			code = max(code, 1)
		}
	}
	os.Exit(code)
}

// suiteClusters is the running real cluster the suite's runs share
// (runner.Reuse: topics and groups of their own per run, health checked
// before and after each, a new cluster when a run leaves it unhealthy or
// asks for other brokers), so that the real-Kafka claims do not each pay a
// cluster's start (13-65 s). TestMain sets it once, before any test; the
// embedded cluster starts in milliseconds and gets none, and
// KAFKACHAOS_FRESH_CLUSTERS=1 gives every run a cluster of its own.
var suiteClusters *runner.Reuse

func sharedClusters() *runner.Reuse {
	if *flagCluster == "embedded" || os.Getenv("KAFKACHAOS_FRESH_CLUSTERS") == "1" {
		return nil
	}
	return &runner.Reuse{Root: *flagRuns, Name: "suite-clusters"}
}

// A harness killed mid-run (SIGKILL: no defer, no flush on the way out) must
// leave a history.jsonl that the reader accepts up to its last whole line,
// and the scenario.json written before anything ran. On a real cluster the
// child also leaves what its Stop never removed; the test removes that run
// (and only that one) and checks nothing of it is left.
func TestChaosKilledRunLeavesReadableHistory(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// The child reads the cluster from the environment: a -kafkachaos.cluster
	// flag given to this test must reach it too.
	cmd.Env = append(os.Environ(), childRunsEnv+"="+root, "KAFKACHAOS_CLUSTER="+*flagCluster)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait() // reaped: a zombie still counts as the live owner of its runs
		cleanAfterKilledHarness(t, cmd.Process.Pid, false)
	})
	limit := 45 * time.Second
	if *flagCluster != "embedded" {
		limit = 5 * time.Minute // a real cluster's start is bounded by 3 minutes of readiness and the format step
	}
	hist := waitForHistory(t, root, 64<<10, limit)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed by SIGKILL: %v", err)
	}
	cleanAfterKilledHarness(t, cmd.Process.Pid, true)
	f, err := os.Open(hist)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := histories.NewReader(f, hist)
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("history left by the killed run is unreadable after %d ops: %v", n, err)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d ops readable", n)
	}
	if _, err := generators.Load(filepath.Dir(hist)); err != nil {
		t.Fatalf("scenario.json of the killed run: %v", err)
	}
	t.Logf("killed run left %d readable ops in %s (warnings: %v)", n, hist, r.Warnings())
}

// cleanAfterKilledHarness removes what the dead harness pid left on a real
// cluster, as `kafkachaos clean` would, and fails if any of it remains.
// hadCluster says the child was killed with its cluster up: it must then
// have left a local run behind, or this test checks nothing.
func cleanAfterKilledHarness(t *testing.T, pid int, hadCluster bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	switch *flagCluster {
	case "local":
		ids := local.RunsOwnedBy(pid)
		if hadCluster && len(ids) == 0 {
			t.Errorf("the killed harness (pid %d) owned no local run: nothing here was cleaned", pid)
		}
		for _, id := range ids {
			left, _ := local.Leftovers(ctx, id)
			removed, err := local.CleanRun(ctx, id)
			t.Logf("killed harness's run %s left %v; removed %v (%v)", id, left, removed, err)
			if left, err := local.Leftovers(ctx, id); len(left) > 0 || err != nil {
				t.Errorf("after cleaning, run %s still has %v (%v)", id, left, err)
			}
		}
	case "docker":
		// The same entry point, for runs whose owner is gone: the child's,
		// and no live run of a parallel package.
		removed, err := docker.CleanLeftovers(ctx)
		t.Logf("removed what dead harnesses left in docker: %v", removed)
		if err != nil {
			t.Errorf("docker.CleanLeftovers: %v", err)
		}
	}
}

// waitForHistory waits up to limit until a run under root has a history of
// at least size bytes, and returns its path.
func waitForHistory(t *testing.T, root string, size int64, limit time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		paths, _ := filepath.Glob(filepath.Join(root, "*", "*", "history.jsonl"))
		for _, p := range paths {
			if fi, err := os.Stat(p); err == nil && fi.Size() >= size {
				return p
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no history of %d bytes under %s within %s", size, root, limit)
	return ""
}

// TestFaultsTookEffect: a draw fails for a fault that never fired, except a
// requested crash the run ended before within lateCrashGrace of its
// request, and only while another fault fired.
func TestFaultsTookEffect(t *testing.T) {
	late := "client fault did not take effect: the run ended before the requested crash happened (awaited 1.02s)"
	long := "client fault did not take effect: the run ended before the requested crash happened (awaited 3.5s)"
	s := generators.Scenario{Nemesis: make([]generators.Fault, 2)}
	for _, c := range []struct {
		name  string
		stats []runner.FaultStat
		want  string // "" for no error
	}{
		{"all fired", []runner.FaultStat{{Kind: "kill", Fired: 1}, {Kind: "crash-consumer", Fired: 2}}, ""},
		{"crash landed too late beside a fired kill", []runner.FaultStat{{Kind: "kill", Fired: 1}, {Kind: "crash-consumer", Errors: []string{late}}}, ""},
		{"a crash awaited for long beside a fired kill", []runner.FaultStat{{Kind: "kill", Fired: 1}, {Kind: "crash-consumer", Errors: []string{long}}}, "nemesis[1] crash-consumer never fired"},
		{"only a late crash", []runner.FaultStat{{Kind: "crash-consumer", Errors: []string{late}}, {Kind: "crash-producer", Errors: []string{late}}}, "no fault fired"},
		{"a kill that never fired", []runner.FaultStat{{Kind: "kill"}, {Kind: "crash-consumer", Fired: 1}}, "nemesis[0] kill never fired"},
		{"a delay the schedule never reached beside a fired kill", []runner.FaultStat{{Kind: "kill", Fired: 1}, {Kind: "delay", NeverRan: []string{"due at 1.066s"}}}, ""},
		{"only faults the schedule never reached", []runner.FaultStat{{Kind: "delay", NeverRan: []string{"due at 1s"}}, {Kind: "kill", NeverRan: []string{"due at 1s"}}}, "no fault fired"},
		{"no client to act on", []runner.FaultStat{{Kind: "kill", Fired: 1}, {Kind: "crash-consumer", Errors: []string{"client fault did not take effect: no client to act on"}}}, "nemesis[1] crash-consumer never fired"},
		{"a failed heal", []runner.FaultStat{{Kind: "kill", Fired: 1, Errors: []string{"heal: broker 2 did not come back"}}, {Kind: "pause", Fired: 1}}, "failed to heal"},
	} {
		err := faultsTookEffect(s, c.stats)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
