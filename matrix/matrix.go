package matrix

import (
	"fmt"
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/internal/counts"
	"github.com/kafkachaos/kafkachaos/model"
)

// RunsDir is where, under the matrix's directory, the cells' run
// directories live.
const RunsDir = "runs"

// Matrix is a run matrix: rows of configurations, columns of fault kinds,
// a cell for each pair.
type Matrix struct {
	Cluster string
	// Client is the client under test of every cell; zero when the
	// scenarios name none (librdkafka).
	Client    Client
	Runs      int
	TimeLimit time.Duration
	Elapsed   time.Duration
	Rows      []RowInfo
	Columns   []ColumnInfo
	// Cells[i][j] is row i under column j.
	Cells [][]Cell
	// scenarios[i][j] is the scenario of cell i, j (zero for n/a cells).
	scenarios [][]generators.Scenario
}

// RowInfo is a row's header: its configuration and what the model predicts
// for it.
type RowInfo struct {
	ID, Name string
	Hop      Hop
	Expected model.Expectation
	// NA says why no cell of the row applies; "" when they may.
	NA string
}

// Predicted is the model's guarantee for the row's hop.
func (r RowInfo) Predicted() model.Guarantee {
	return hopOf(r.Hop, r.Expected.Producer.Guarantee, r.Expected.Consumer.Guarantee, r.Expected.EndToEnd)
}

// Reasons are the model's reasons for the row's hop.
func (r RowInfo) Reasons() []string {
	switch r.Hop {
	case HopProducer:
		return r.Expected.Producer.Reasons
	case HopConsumer:
		return r.Expected.Consumer.Reasons
	}
	return r.Expected.Reasons()
}

// ColumnInfo is a column's header.
type ColumnInfo struct{ ID, Name string }

// Cell is one configuration under one fault kind.
type Cell struct {
	Row, Column string
	// NA says why the cell cannot apply; it was then not run.
	NA   string
	Runs []RunResult
}

// RunResult is what the matrix keeps of one run.
type RunResult struct {
	Seed int64
	// Dir is the run directory, relative to the matrix's directory.
	Dir string
	// Judged says the run reached a verdict (no harness error).
	Judged   bool
	Held     bool
	Observed model.Observation
	// Counts are the anomalies found, by name.
	Counts      map[string]int64
	FaultsFired int64
	// Hangs are the client calls that outlived their timeout.
	Hangs int
	// NeverBack are the kinds of op (send, poll, ...) that never came
	// back after the last heal: what made the run not live.
	NeverBack []string
	// Liveness is the run's liveness headline (live, send outage,
	// recovery, stalls, worst lag).
	Liveness checkers.Headline
	// Err is the harness error of a run that reached no verdict; NA says
	// the cluster turned out, once started, not to inject the fault.
	Err, NA string
}

func hopOf(h Hop, producer, consumer, e2e model.Guarantee) model.Guarantee {
	switch h {
	case HopProducer:
		return producer
	case HopConsumer:
		return consumer
	}
	return e2e
}

// observedHop is what the run showed on hop h.
func (r RunResult) observedHop(h Hop) model.Guarantee {
	return hopOf(h, r.Observed.Producer, r.Observed.Consumer, r.Observed.EndToEnd)
}

func (r RunResult) summary(h Hop) string {
	switch {
	case r.NA != "":
		return "n/a: " + r.NA
	case r.Err != "":
		return "harness error: " + r.Err
	case !r.Judged:
		return "not run"
	}
	verdict := "held"
	if !r.Held {
		verdict = "NOT HELD"
	}
	return fmt.Sprintf("%s observed %s, %s; %s; %s", h, r.observedHop(h), verdict, countsText(r.Counts), r.Liveness)
}

// settle turns a cell whose every run found the fault uninjectable into an
// n/a cell with that reason.
func (m *Matrix) settle() {
	for i := range m.Cells {
		for j := range m.Cells[i] {
			c := &m.Cells[i][j]
			if len(c.Runs) > 0 && c.Runs[0].NA != "" && c.judged() == 0 && c.errors() == 0 {
				c.NA = c.Runs[0].NA
			}
		}
	}
}

func (c Cell) judged() int {
	n := 0
	for _, r := range c.Runs {
		if r.Judged {
			n++
		}
	}
	return n
}

func (c Cell) errors() int {
	n := 0
	for _, r := range c.Runs {
		if r.Err != "" {
			n++
		}
	}
	return n
}

// Held is how many runs held the runner's verdict.
func (c Cell) Held() int {
	n := 0
	for _, r := range c.Runs {
		if r.Judged && r.Held {
			n++
		}
	}
	return n
}

// Observed is the weakest guarantee the judged runs showed on hop h (every
// run must be allowed for the cell to be), and false when none was judged.
func (c Cell) Observed(h Hop) (model.Guarantee, bool) {
	g, any := model.ExactlyOnce, false
	for _, r := range c.Runs {
		if r.Judged {
			g, any = model.Meet(g, r.observedHop(h)), true
		}
	}
	return g, any
}

// Fired reports whether the column's fault fired in a judged run of the
// cell.
func (c Cell) Fired() bool {
	for _, r := range c.Runs {
		if r.Judged && r.FaultsFired > 0 {
			return true
		}
	}
	return false
}

// Finding reports whether the cell showed less than was promised: a run the
// runner judged not held (observed weaker than expected end to end, or an
// anomaly of unknown effect), or the row's hop observed weaker than the
// model predicts for it.
func (c Cell) Finding(row RowInfo) bool {
	for _, r := range c.Runs {
		if r.Judged && (!r.Held || !model.Satisfies(r.observedHop(row.Hop), row.Predicted())) {
			return true
		}
	}
	return false
}

// Liveness is the worst of the judged runs' liveness headlines: not live
// when one was not, the longest send outage, recovery and lag, the stalls
// added up.
func (c Cell) Liveness() checkers.Headline {
	var h checkers.Headline
	for _, r := range c.Runs {
		if !r.Judged {
			continue
		}
		l := r.Liveness
		h.NotLive = h.NotLive || l.NotLive
		h.SendOutage, h.WorstLag, h.Stalls = max(h.SendOutage, l.SendOutage), max(h.WorstLag, l.WorstLag), h.Stalls+l.Stalls
		if l.Recovered {
			h.Recovery, h.Recovered = max(h.Recovery, l.Recovery), true
		}
	}
	return h
}

// Hangs adds up the client hangs of the cell's judged runs.
func (c Cell) Hangs() int {
	n := 0
	for _, r := range c.Runs {
		n += r.Hangs
	}
	return n
}

// NeverBack are the kinds of op that never came back after the last heal
// in one of the cell's judged runs, sorted.
func (c Cell) NeverBack() []string {
	var out []string
	for _, r := range c.Runs {
		for _, k := range r.NeverBack {
			if r.Judged && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// NotLive are the cells in which a run's cluster never came back after
// the last heal, row by row: findings of liveness, beside the safety
// findings (Findings).
func (m Matrix) NotLive() []FindingAt {
	var out []FindingAt
	for i, row := range m.Cells {
		for j, c := range row {
			if c.Liveness().NotLive {
				out = append(out, FindingAt{i, j})
			}
		}
	}
	return out
}

// Anomalies adds up the anomalies of the cell's runs.
func (c Cell) Anomalies() map[string]int64 {
	out := map[string]int64{}
	for _, r := range c.Runs {
		for a, n := range r.Counts {
			out[a] += n
		}
	}
	return out
}

// FindingAt is one finding's place.
type FindingAt struct{ Row, Col int }

// Findings are the cells observed weaker than predicted, row by row.
func (m Matrix) Findings() []FindingAt {
	var out []FindingAt
	for i, row := range m.Cells {
		for j, c := range row {
			if c.Finding(m.Rows[i]) {
				out = append(out, FindingAt{i, j})
			}
		}
	}
	return out
}

// Counts are how many cells ran, were n/a, and had a run end in a harness
// error.
func (m Matrix) Counts() (ran, na, harness int) {
	for _, row := range m.Cells {
		for _, c := range row {
			switch {
			case c.NA != "":
				na++
			case c.errors() > 0:
				harness++
				ran++
			default:
				ran++
			}
		}
	}
	return ran, na, harness
}

// countsText is "duplicate 3, lost-write 1", or "no anomaly".
func countsText(c map[string]int64) string {
	if s := counts.Counts(c).String(); s != "" {
		return s
	}
	return "no anomaly"
}
