package report

import (
	"bufio"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// Options tune a report. The zero value is fine.
type Options struct {
	// InlineOpsBytes is the largest history whose every op's JSON is put in
	// the page for the timeline's click-to-inspect. Bigger histories keep
	// only the ops anomalies name. Zero means 64 MiB.
	InlineOpsBytes int64
	// Title overrides the page title (default: the run directory's last two
	// path elements, i.e. test name and time).
	Title string
}

func (o Options) inlineBudget() int64 {
	if o.InlineOpsBytes > 0 {
		return o.InlineOpsBytes
	}
	return 64 << 20
}

// page is the template's data. The timeline and the ops' JSON are not in
// it: they are the bulk of a big run's page and are streamed after it.
type page struct {
	Title, Dir            string
	Checked               bool
	Verdict               Verdict
	Allowed               []allowance // for an amber verdict: the hops that allow its anomalies
	OrderOnly             []checkers.Anomaly
	HarnessError          string
	Expected, Observed    string
	HeldKnown, Held       bool // the run's verdict, when results.json has one
	Unclassified          []checkers.Anomaly
	Liveness              *livenessView
	Stats                 checkers.Stats
	Anomalies             []anomalyView
	Warnings              []string
	Scenario              *scenario
	Orders                []orderView
	Latency, Rate, Unseen template.HTML
	NeverRead             int64
	Visualizations        []visualization
	LinSummary            string
	Evidence              []evidence
	Files                 []runFile
	HistoryOps, Windows   int
	Generated             string

	timeline  *timeline
	wins      []window
	end       int64
	focus     map[int64]int
	inlineOps bool
}

type evidence struct {
	Index int64
	JSON  string
}

// Write writes (or refreshes) index.html in a run directory from its
// history.jsonl, results.json (optional: an unchecked run shows no verdict)
// and scenario.json (optional). The page is streamed to a temporary file
// that replaces index.html only when complete.
func Write(runDir string, opts Options) error {
	tmp, err := os.CreateTemp(runDir, ".index-*.tmp") // not *.html: the page lists those
	if err != nil {
		return err
	}
	err = Render(tmp, runDir, opts)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(runDir, IndexFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// Render writes the report page of a run directory to w, as it is made:
// the page never exists whole in memory.
func Render(w io.Writer, runDir string, opts Options) error {
	start := time.Now()
	p, err := build(runDir, opts)
	if err != nil {
		return err
	}
	p.Generated = fmt.Sprintf("%s in %v", time.Now().UTC().Format(time.RFC3339), time.Since(start).Round(time.Millisecond))
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := p.write(bw, runDir); err != nil {
		return err
	}
	return bw.Flush()
}

// write executes the page template around the streamed parts: the
// timeline, then (for histories small enough) every op's JSON.
func (p *page) write(w *bufio.Writer, dir string) error {
	if err := pageTemplate.ExecuteTemplate(w, "page", p); err != nil {
		return err
	}
	w.WriteString(`<script type="application/json" id="tl-data">`)
	if err := p.timeline.write(w, p.wins, p.end, p.focus); err != nil {
		return err
	}
	w.WriteString("</script>\n")
	if p.inlineOps {
		w.WriteString(`<script type="application/json" id="ops-data">`)
		if err := writeOps(w, dir); err != nil {
			return err
		}
		w.WriteString("</script>")
	}
	w.WriteString("\n")
	return pageTemplate.ExecuteTemplate(w, "tail", p)
}

func build(dir string, opts Options) (*page, error) {
	if _, err := os.Stat(filepath.Join(dir, HistoryFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s: not a run directory", dir, HistoryFile)
	}
	res, checked, err := loadResults(dir)
	if err != nil {
		return nil, err
	}
	sc, err := loadScenario(dir)
	if err != nil {
		return nil, err
	}
	order := anomalyOrder(res)
	views := anomalyViews(res, order)
	evSet, evFirst := evidenceOps(views)
	for _, i := range livenessOps(res.Liveness) {
		evSet[i] = true
	}
	keys, findings := focusKeys(res, order)
	focus := map[int64]bool{}
	for _, k := range keys {
		focus[k] = true
	}
	c, err := collect(dir, focus, evSet)
	if err != nil {
		return nil, err
	}
	wins := faultWindows(c.nemesisBars(), c.End, c.NemValues)
	p := &page{
		Title: opts.Title, Dir: dir, Checked: checked, Verdict: res.facts(checked).Verdict(),
		HarnessError: res.HarnessError, Expected: res.Expected, Observed: res.Observed,
		HeldKnown: res.Held != nil, Held: res.Held != nil && *res.Held,
		Unclassified: res.Observation.Unclassified, Liveness: newLivenessView(res.Liveness), Stats: res.Stats,
		Anomalies: views, Warnings: res.Warnings, Scenario: sc,
		HistoryOps: int(c.Ops), Windows: len(wins),
		Visualizations: visualizations(dir, res), LinSummary: linSummary(res), Files: runFiles(dir),
	}
	if p.Verdict.Class == "allowed" {
		p.Allowed, p.OrderOnly = allowances(res), res.Observation.OrderOnly
	}
	if p.Title == "" {
		p.Title = filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir))
	}
	p.Warnings = append(p.Warnings, c.Warnings...)
	p.timeline, p.wins, p.end, p.focus = newTimeline(c), wins, c.End, evFirst
	p.inlineOps = inlineOps(dir, c, opts.inlineBudget())
	p.Latency = latencyPlot(c.Spans, c.Fs, wins, c.End)
	p.Rate = ratePlot(c.Spans, c.Fs, wins, c.End)
	p.Unseen, p.NeverRead = unseenPlot(c.Values, wins, c.End)
	for _, k := range keys {
		p.Orders = append(p.Orders, buildOrder(k, c.Orders[k], c.OrdersCut[k], findings[k]))
	}
	for i := range evSet {
		if raw := c.Evidence[i]; raw != nil {
			p.Evidence = append(p.Evidence, evidence{i, indentJSON(raw)})
		}
	}
	sort.Slice(p.Evidence, func(i, j int) bool { return p.Evidence[i].Index < p.Evidence[j].Index })
	return p, nil
}
