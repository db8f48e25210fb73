package matrix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// RunFunc runs one scenario; runner.Run is the one a matrix uses.
type RunFunc func(ctx context.Context, s generators.Scenario, opts runner.Options) (runner.Outcome, error)

// Options say which matrix to run and where its evidence goes.
type Options struct {
	// Cluster is the provider every run uses ("embedded", "local", ...).
	Cluster string
	// Out is the directory of MATRIX.md, matrix.html and, under runs/, every
	// cell's run directories (kept, so the table can link to them).
	Out string
	// Runs is how many runs each cell makes; 0 means 1.
	Runs int
	// TimeLimit is each run's; 0 means DefaultTimeLimit(Cluster).
	TimeLimit time.Duration
	// Workers is how many runs go at once; 0 means DefaultWorkers(Cluster).
	Workers int
	// Seed is the first run's seed; run i of a cell has Seed+i.
	Seed int64
	// Rows and Columns are the matrix; nil means Rows(Cluster) and
	// Columns(Cluster).
	Rows    []Row
	Columns []Column
	// Progress, when set, gets a line as each run ends.
	Progress io.Writer
	// Providers makes the clusters; nil means runner.DefaultProviders.
	Providers runner.Providers
	// Run runs one scenario; nil means runner.Run. Tests put a wrapper
	// here to make a finding on purpose.
	Run RunFunc
	// Replay renders a saved scenario's replay command (runner.Options).
	Replay func(scenarioPath string) string
	// Client, when set, is the client under test of every cell
	// (generators.UseClient); RunClients sets it once per client.
	Client Client
}

// DefaultTimeLimit is a run's length on provider: a few seconds on the
// embedded cluster, where a broker restarts in milliseconds; long enough on
// real brokers for an election and a group rebalance to happen inside it.
func DefaultTimeLimit(provider string) time.Duration {
	if provider == "embedded" {
		return 3 * time.Second
	}
	return 20 * time.Second
}

// DefaultWorkers is how many runs go at once on provider: each embedded run
// has its own kfake cluster, so two share this size of machine; runs on
// real brokers take the machine's brokers one run at a time.
func DefaultWorkers(provider string) int {
	if provider == "embedded" {
		return 2
	}
	return 1
}

func (o Options) withDefaults() Options {
	if o.Runs <= 0 {
		o.Runs = 1
	}
	if o.TimeLimit <= 0 {
		o.TimeLimit = DefaultTimeLimit(o.Cluster)
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers(o.Cluster)
	}
	if o.Rows == nil {
		o.Rows = Rows(o.Cluster)
	}
	if o.Columns == nil {
		o.Columns = Columns(o.Cluster)
	}
	if o.Providers == nil {
		o.Providers = runner.DefaultProviders()
	}
	if o.Run == nil {
		o.Run = runner.Run
	}
	return o
}

// Run runs every applicable cell's runs, Workers at a time, and returns the
// matrix; Write turns it into pages. An error means the matrix could not be
// laid out (unknown cluster, no rows); a run's own harness error is kept in
// its cell.
func Run(ctx context.Context, opts Options) (Matrix, error) {
	o := opts.withDefaults()
	if o.Out == "" {
		return Matrix{}, errors.New("matrix: Options.Out is empty: the cells' run directories need a home")
	}
	if len(o.Rows) == 0 || len(o.Columns) == 0 {
		return Matrix{}, fmt.Errorf("matrix: %d rows and %d columns: want at least one of each", len(o.Rows), len(o.Columns))
	}
	prov, err := o.Providers.New(o.Cluster)
	if err != nil {
		return Matrix{}, fmt.Errorf("matrix: %w", err)
	}
	t0 := time.Now()
	m := layout(o, func(s generators.Scenario) error { return runner.Injectable(prov, s) })
	jobs := m.jobs(o)
	runJobs(ctx, o, &m, jobs)
	m.Elapsed = time.Since(t0)
	if err := ctx.Err(); err != nil {
		return m, fmt.Errorf("matrix interrupted: %w", err)
	}
	return m, nil
}

// layout is the matrix before any run: predictions, and n/a cells with
// their reasons; injectable says whether the cluster can inject a
// scenario's faults.
func layout(o Options, injectable func(generators.Scenario) error) Matrix {
	m := Matrix{Cluster: o.Cluster, Client: o.Client, Runs: o.Runs, TimeLimit: o.TimeLimit}
	for _, c := range o.Columns {
		m.Columns = append(m.Columns, ColumnInfo{ID: c.ID, Name: c.Name})
	}
	kinds := generators.KindsFor(o.Cluster)
	for _, r := range o.Rows {
		info, base := rowOf(o, r)
		m.Rows = append(m.Rows, info)
		cells := make([]Cell, len(o.Columns))
		scenarios := make([]generators.Scenario, len(o.Columns))
		for j, c := range o.Columns {
			cells[j] = Cell{Row: r.ID, Column: c.ID, NA: info.NA}
			if cells[j].NA == "" {
				scenarios[j], cells[j].NA = cellScenario(base, o.Cluster, o.Client, r, c, kinds, injectable)
			}
		}
		m.Cells = append(m.Cells, cells)
		m.scenarios = append(m.scenarios, scenarios)
	}
	return m
}

// rowOf is r's header, with its prediction from the model (the same call
// the runner makes for each of its runs), and r's scenario without faults.
func rowOf(o Options, r Row) (RowInfo, generators.Scenario) {
	info := RowInfo{ID: r.ID, Name: r.Name, Hop: r.Hop, NA: r.NA}
	s := Base(o.Cluster, o.TimeLimit)
	r.Apply(&s)
	exp, err := model.ExpectedUnder(s.Conditions(), s.Producer.ProducerConfig, s.Topic, s.Consumer.ConsumerConfig)
	if err != nil && info.NA == "" {
		info.NA = "the model has no prediction: " + err.Error()
	}
	info.Expected = exp
	return info, s
}

// cellScenario is row r's scenario s under c's fault, through client when
// one is named, or why it cannot apply: the client does not run the
// workers of the row's hop, the cluster does not inject the kind, or the
// scenario gives the fault nothing to act on (generators' availability
// rules, through Validate).
func cellScenario(s generators.Scenario, cluster string, client Client, r Row, c Column, kinds []string,
	injectable func(generators.Scenario) error) (generators.Scenario, string) {
	s.Name = "matrix-" + r.ID + "-" + c.ID
	if client.Name != "" {
		s.Name += "-" + client.slug()
	}
	s.Nemesis = []generators.Fault{c.Fault(s)}
	if client.Name != "" {
		// after the fault: whether a client can play a role may depend on
		// it; the fault again after: where it can land may depend on the
		// client (a consumer crash's commit point)
		generators.UseClient(&s, client.Name, client.Version)
		s.Nemesis = []generators.Fault{c.Fault(s)}
		if na := clientNA(s, client, r.Hop); na != "" {
			return s, na
		}
	}
	if !slices.Contains(kinds, s.Nemesis[0].Kind) {
		return s, fmt.Sprintf("the %s cluster does not inject %s (its fault kinds: %s)",
			cluster, s.Nemesis[0].Kind, strings.Join(kinds, ", "))
	}
	if err := s.Validate(); err != nil {
		return s, "the scenario cannot take this fault: " + err.Error()
	}
	if err := injectable(s); err != nil {
		return s, err.Error()
	}
	return s, ""
}

// job is one run of one cell.
type job struct {
	row, col, run int
	s             generators.Scenario
}

func (m *Matrix) jobs(o Options) []job {
	var out []job
	for i := range m.Cells {
		for j := range m.Cells[i] {
			if m.Cells[i][j].NA != "" {
				continue
			}
			m.Cells[i][j].Runs = make([]RunResult, o.Runs)
			for k := range o.Runs {
				s := m.scenarios[i][j]
				s.Seed = o.Seed + int64(k)
				out = append(out, job{row: i, col: j, run: k, s: s})
			}
		}
	}
	return out
}

// runJobs runs the jobs on o.Workers workers; each writes only its own
// RunResult slot, and the progress lines go out under one lock.
func runJobs(ctx context.Context, o Options, m *Matrix, jobs []job) {
	queue := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(o.Workers, max(1, len(jobs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				t0 := time.Now()
				res := runOne(ctx, o, j)
				m.Cells[j.row][j.col].Runs[j.run] = res
				mu.Lock()
				done++
				progress(o.Progress, done, len(jobs), m, j, res, time.Since(t0))
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		queue <- j
	}
	close(queue)
	wg.Wait()
	m.settle()
}

// runOne runs one job and keeps what the matrix shows of it.
func runOne(ctx context.Context, o Options, j job) RunResult {
	test := j.s.Name
	if o.Runs > 1 {
		test = fmt.Sprintf("%s-run%d", test, j.run+1)
	}
	out, err := o.Run(ctx, j.s, runner.Options{RunsDir: filepath.Join(o.Out, RunsDir), TestName: test, Keep: true,
		Providers: o.Providers, Replay: o.Replay})
	res := RunResult{Seed: j.s.Seed}
	if out.Dir != "" {
		if rel, rerr := filepath.Rel(o.Out, out.Dir); rerr == nil {
			res.Dir = filepath.ToSlash(rel)
		}
	}
	var unsupported *runner.UnsupportedFault
	switch {
	case errors.As(err, &unsupported):
		res.NA = unsupported.Error()
	case err != nil:
		res.Err = err.Error()
	default:
		res.Judged, res.Held, res.Observed = true, out.Held, out.Observed
		res.Counts, res.FaultsFired, res.Liveness = map[string]int64{}, out.Stats.FaultsFired, out.Result.Liveness.Headline()
		if l := out.Result.Liveness; l != nil {
			res.Hangs = len(l.ClientHangs)
			for _, k := range l.Kinds {
				if k.NeverRecovered {
					res.NeverBack = append(res.NeverBack, k.Kind)
				}
			}
		}
		for a, n := range out.Result.Counts {
			res.Counts[string(a)] = n
		}
	}
	return res
}

func progress(w io.Writer, done, total int, m *Matrix, j job, res RunResult, took time.Duration) {
	if w == nil {
		return
	}
	client := ""
	if m.Client.Name != "" {
		client = m.Client.String() + ": "
	}
	fmt.Fprintf(w, "[%d/%d] %s%s x %s run %d: %s (%v)\n", done, total, client, m.Rows[j.row].Name, m.Columns[j.col].Name,
		j.run+1, res.summary(m.Rows[j.row].Hop), took.Round(100*time.Millisecond))
}
