package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/kproxy"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/nemesis"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/workers"
)

// Options tune a run. The zero value runs on the default providers, writes
// under the default runs root and keeps only failed runs.
type Options struct {
	// RunsDir is the runs root; "" means $KAFKACHAOS_RUNS, else runs/ in
	// the module root.
	RunsDir string
	// TestName is the run directory's parent (runs/<TestName>/<time>);
	// "" means the scenario's name.
	TestName string
	// Keep keeps the run directory even when the guarantee held.
	Keep bool
	// Progress, when set, receives live progress; TTY says it is a
	// terminal (one updating line) rather than a log (a line every 10s).
	Progress io.Writer
	TTY      bool
	// Providers makes the cluster; nil means DefaultProviders.
	Providers Providers
	// Reuse, when set, runs on its running cluster (fresh topics, group
	// and transactional ids) instead of starting and stopping one.
	Reuse *Reuse
	// FinalReadTimeout bounds the final reads; 0 means one minute.
	FinalReadTimeout time.Duration
	// Replay renders the command that replays a saved scenario; nil means
	// "kafkachaos run --scenario <path>".
	Replay func(scenarioPath string) string
}

// Outcome is what a run found.
type Outcome struct {
	// Dir is the run directory; it no longer exists unless Kept.
	Dir      string
	Kept     bool
	Scenario generators.Scenario
	Result   checkers.Result
	Expected model.Expectation
	Observed model.Observation
	// Held is the verdict: the observed guarantee satisfies the expected
	// one and every anomaly found has a known effect on delivery.
	Held  bool
	Stats Stats
	// Simulated is how long a simulated run took in virtual time; 0 for
	// a run on a real cluster.
	Simulated time.Duration
	// Linearizability is porcupine's verdict per key: a second, independent
	// opinion on each key's log, reported beside the verdict, not in it (the
	// checkers' anomalies decide the guarantee).
	Linearizability *checkers.LinResult
}

// Run runs s once, end to end (see the package doc). An error means the
// harness could not produce a trustworthy verdict (bad scenario, cluster
// failure, interrupted run, unreadable history); the run directory is then
// kept with whatever it has.
func Run(ctx context.Context, s generators.Scenario, opts Options) (out Outcome, err error) {
	if err := s.Validate(); err != nil {
		return out, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	exp, err := Expected(s)
	if err != nil {
		return out, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	prov, err := newProvider(s, opts.Providers)
	if err != nil {
		return out, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	test := opts.TestName
	if test == "" {
		test = s.Name
	}
	dir, err := MakeRunDir(RunsRoot(opts.RunsDir), test, time.Now())
	if err != nil {
		return out, err
	}
	out.Dir, out.Expected = dir, exp
	defer func() {
		out.Kept = err != nil || !out.Held || opts.Keep
		if !out.Kept {
			if rerr := os.RemoveAll(dir); rerr != nil {
				err = fmt.Errorf("removing run directory: %w", rerr)
			}
			os.Remove(filepath.Dir(dir)) // the test's directory, if now empty

		}
	}()
	if opts.Reuse != nil {
		s = opts.Reuse.Fresh(s)
	}
	// scenario.json first: whatever happens next, the run can be replayed.
	s.Replay = replayCommand(opts, filepath.Join(dir, generators.FileName))
	out.Scenario = s
	if err := generators.Save(dir, s); err != nil {
		return out, err
	}
	prov, release, err := start(ctx, s, prov, dir, opts)
	if err != nil {
		return out, fmt.Errorf("run %s recorded nothing: %w", dir, err)
	}
	elapsed, faults, m, herr := record(ctx, s, prov, dir, opts)
	release(ctx, herr)
	if herr != nil && ctx.Err() != nil {
		return out, fmt.Errorf("run interrupted, history kept unchecked in %s: %w", dir, herr)
	}
	if _, serr := os.Stat(filepath.Join(dir, report.HistoryFile)); herr != nil && serr != nil {
		// Nothing was recorded (the cluster never came up): there is no
		// history to judge, and the harness error is the whole story.
		return out, fmt.Errorf("run %s recorded nothing: %w", dir, herr)
	}
	if err := out.judge(dir, elapsed, faults, m, herr); err != nil {
		return out, err
	}
	if rerr := report.Write(dir, report.Options{}); rerr != nil {
		return out, fmt.Errorf("report: %w", rerr)
	}
	if opts.Reuse != nil && herr == nil && out.Held && !opts.Keep {
		opts.Reuse.retire(ctx, s)
	}
	if herr != nil {
		return out, fmt.Errorf("run %s: %w", dir, herr)
	}
	return out, nil
}

func replayCommand(opts Options, path string) string {
	if opts.Replay != nil {
		return opts.Replay(path)
	}
	return "kafkachaos run --scenario " + path
}

// judge checks the history file (so that what is judged is exactly what a
// later `kafkachaos check` would read) and writes results.json.
func (out *Outcome) judge(dir string, elapsed time.Duration, faults []FaultStat, m *meter, herr error) error {
	if err := out.Check(dir); err != nil {
		return err
	}
	out.Stats = m.stats(out.Result.Stats, elapsed, faults)
	late, err := lateRequests(dir)
	if err != nil {
		return err
	}
	out.Stats.LateRequests = late
	return WriteResults(dir, out, herr)
}

// lateRequests counts, by API and answer, the requests of dir's request
// log still unanswered when their transaction ended (kproxy.Outlived):
// nil when the run logged no requests.
func lateRequests(dir string) (map[string]int64, error) {
	path := filepath.Join(dir, report.RequestsFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	entries, err := kproxy.ReadLog(path)
	if err != nil {
		return nil, err
	}
	return kproxy.LateCounts(kproxy.OutlivedTxn(kproxy.Exchanges(entries))), nil
}

// Check runs the checkers on dir's history.jsonl and decides the verdict
// against out.Expected: Result, Observed, Held and Linearizability. It is
// the one place a verdict is decided, for runs and for chaostest.
func (out *Outcome) Check(dir string) error {
	src, err := histories.Open(filepath.Join(dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		return err
	}
	res, err := checkers.Check(src, checkers.Options{MaxCases: maxCases})
	if err != nil {
		return fmt.Errorf("checking %s: %w", dir, err)
	}
	for _, w := range src.Warnings() {
		res.Warnings = append(res.Warnings, w.String())
	}
	lin, err := checkers.CheckLinearizable(src, checkers.LinOptions{Timeout: linTimeout, VisualizeDir: dir})
	if err != nil {
		return fmt.Errorf("checking linearizability of %s: %w", dir, err)
	}
	out.Result, out.Observed, out.Linearizability = res, model.Observe(res), &lin
	out.Held = out.Expected.HeldBy(out.Observed)
	return nil
}

// Expected is what the model expects of s's configuration, hop by hop; a
// scenario with copiers is a copy pipeline (model.Expectation.Copied).
func Expected(s generators.Scenario) (model.Expectation, error) {
	exp, err := model.ExpectedUnder(s.Conditions(), s.Producer.ProducerConfig, s.Topic, s.Consumer.ConsumerConfig)
	if err != nil || s.Workload.Copiers == 0 {
		return exp, err
	}
	return exp.Copied(), nil
}

// linTimeout bounds porcupine's search of one key: a key it cannot decide
// in time is reported as unknown, never as a verdict.
const linTimeout = 10 * time.Second

// maxCases bounds the cases per anomaly kept for the report; counts stay
// exact.
const maxCases = 200

// newProvider makes the scenario's provider from provs (nil: the default
// ones) and checks, before it starts, the faults it can be asked about then.
func newProvider(s generators.Scenario, provs Providers) (cluster.Provider, error) {
	if provs == nil {
		provs = DefaultProviders()
	}
	prov, err := provs.New(s.Cluster.Provider)
	if err != nil {
		return nil, err
	}
	return prov, Injectable(prov, s)
}

// start is the running cluster for s with its topics, and what to call
// when the run is over, with its harness error: prov started for this run
// and stopped after it, or opts.Reuse's cluster, checked after it.
func start(ctx context.Context, s generators.Scenario, prov cluster.Provider, dir string, opts Options) (cluster.Provider, func(context.Context, error), error) {
	if opts.Reuse != nil {
		p, err := opts.Reuse.acquire(ctx, s, prov, dir, opts.RunsDir)
		return p, func(ctx context.Context, herr error) { opts.Reuse.release(ctx, s, herr) }, err
	}
	if err := prov.Start(ctx, ClusterSpec(s, dir)); err != nil {
		prov.Stop(context.Background())
		return nil, nil, fmt.Errorf("starting cluster %s: %w", prov.Name(), err)
	}
	return prov, func(context.Context, error) { prov.Stop(context.Background()) }, nil
}

// record runs the workload, nemesis and final reads on the running
// cluster, and closes the history. It returns how long the workload ran and
// what the faults did.
func record(ctx context.Context, s generators.Scenario, prov cluster.Provider, dir string, opts Options) (time.Duration, []FaultStat, *meter, error) {
	m := newMeter()
	logs, closeLogs, err := OpenClientLog(dir)
	if err != nil {
		return 0, nil, m, err
	}
	hw, err := histories.Create(filepath.Join(dir, report.HistoryFile))
	if err != nil {
		return 0, nil, m, errors.Join(err, closeLogs())
	}
	rec := histories.NewRecorder(hw, histories.RecorderConfig{Observe: m.observe})
	closeRequests, err := logRequests(s, prov, dir)
	if err != nil {
		return 0, nil, m, errors.Join(err, closeLogs(), rec.Close())
	}
	elapsed, faults, err := play(ctx, s, prov, rec, m, clientLog{logs: logs, dir: dir}, opts)
	err = errors.Join(err, closeLogs(), closeRequests())
	if cerr := rec.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("closing history: %w", cerr))
	}
	return elapsed, faults, m, err
}

// logRequests opens the run's request log (report.RequestsFile) when its
// clients go through proxies whose provider logs them; the returned close
// flushes it.
func logRequests(s generators.Scenario, prov cluster.Provider, dir string) (func() error, error) {
	rl, ok := prov.(cluster.RequestLogger)
	if !ok || !s.Proxied() {
		return func() error { return nil }, nil
	}
	return rl.LogRequests(filepath.Join(dir, report.RequestsFile))
}

// play is the recorded part of a run: workload and nemesis until the time
// limit, heal, final reads.
func play(ctx context.Context, s generators.Scenario, prov cluster.Provider, rec *histories.Recorder, m *meter, cl clientLog, opts Options) (elapsed time.Duration, faults []FaultStat, err error) {
	logs := cl.logs
	w, closeClients, err := openClients(s, prov, rec, logs, cl.dir)
	if err != nil {
		return 0, nil, err
	}
	defer func() { err = errors.Join(err, closeClients()) }()
	sc, err := newSchedule(prov, w, s)
	if err != nil {
		return 0, nil, err
	}
	t0 := time.Now()
	wctx, cancel := context.WithDeadline(ctx, t0.Add(s.TimeLimit.D()))
	defer cancel()
	if err := w.Start(wctx); err != nil {
		cancel()
		w.Stop(context.Background())
		return 0, nil, err
	}
	nemDone := make(chan error, 1)
	go func() { nemDone <- sc.run(wctx, rec) }()
	prog := startProgress(opts.Progress, opts.TTY, m, sc, t0, s.TimeLimit.D())
	<-wctx.Done()
	elapsed = time.Since(t0)
	m.frozen.Store(true)
	nemErr := awaitHeal(nemDone, healBound(len(sc.meter)))
	faults = sc.stats()
	w.Stop(context.Background())
	prog.end()
	if ctx.Err() != nil {
		return elapsed, faults, errors.Join(ctx.Err(), nemErr, w.Err())
	}
	// Final reads run even when a heal failed (nemErr names the fault): they
	// record what can be read, and the harness error says the cluster may
	// not have been whole.
	err = finalReads(ctx, s, prov, rec, finalReader{process: w.NextProcess(), logs: logs}, opts)
	return elapsed, faults, errors.Join(nemErr, err, w.Err())
}

// healBound bounds the wait for the nemesis once the run is over: it heals
// each active fault, one at a time, each within nemesis.HealTimeout, and a
// fault starting at the run's end is cut short by it; one more
// HealTimeout is the health wait after the last heal (nemesis.WithHealth).
func healBound(faults int) time.Duration { return time.Duration(faults+2) * nemesis.HealTimeout }

// awaitHeal waits up to bound for the nemesis to finish healing. One that
// has not is left running and reported: the run still ends on time.
func awaitHeal(done <-chan error, bound time.Duration) error {
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("nemesis: %w", err)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("nemesis: still healing %v after the run's end; the cluster may not be whole", bound)
	}
}

// clientLog is the run's client log: the in-process clients' sink, and the
// run directory whose file the worker processes append to.
type clientLog struct {
	logs *client.Logs
	dir  string
}

// finalReader is who makes the final reads: a process no worker used, and
// the run's client log.
type finalReader struct {
	process int64
	logs    *client.Logs
}

func finalReads(ctx context.Context, s generators.Scenario, prov cluster.Provider, rec *histories.Recorder, r finalReader, opts Options) error {
	km, err := workers.KeyMap(s.Keys.Map)
	if err != nil {
		return err
	}
	limit := opts.FinalReadTimeout
	if limit <= 0 {
		limit = time.Minute
	}
	fctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	// read_committed when anything is transactional: an aborted record read
	// by the final reads would be an aborted read nobody made.
	rc := s.Producer.Transactional() || s.Consumer.IsolationLevel == model.ReadCommitted
	return client.FinalReads(fctx, client.FinalReadOptions{Bootstrap: prov.Bootstrap(), Keys: km, Recorder: rec,
		Process: r.process, ReadCommitted: rc, Logs: r.logs})
}

// ClusterSpec is the cluster s asks for, in run directory dir: its
// brokers, and its input and output topics with a partition per key.
func ClusterSpec(s generators.Scenario, dir string) cluster.Spec {
	topic := func(name string) cluster.TopicSpec {
		return cluster.TopicSpec{Name: name, Partitions: int32(s.Keys.Count),
			ReplicationFactor: int16(s.Topic.ReplicationFactor), MinInsyncReplicas: s.Topic.MinInsyncReplicas,
			Configs: map[string]string{"unclean.leader.election.enable": strconv.FormatBool(s.Topic.UncleanLeaderElection)}}
	}
	spec := cluster.Spec{RunID: filepath.Base(dir), RunDir: dir, Brokers: s.Cluster.Brokers,
		BrokerConfigs: s.Cluster.BrokerConfigs, Topics: []cluster.TopicSpec{topic(s.Keys.Topic)}, Proxied: s.Proxied(), LazyDisks: s.LazyDisks(), Clocks: s.Clocked(),
		ReplicationProxied: s.ReplicationProxied(), DynamicQuorum: s.DynamicQuorum()}
	if s.Keys.OutputTopic != "" {
		spec.Topics = append(spec.Topics, topic(s.Keys.OutputTopic))
	}
	return spec
}
