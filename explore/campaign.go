package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/internal/counts"
)

// Campaign is one exploration: draws from Gen within Space, from Seed,
// judged by Judge, for Duration or until a violation, or Draws of them.
type Campaign struct {
	Gen      generators.Space
	Space    Space
	Seed     int64
	Duration time.Duration
	// Draws, when positive, bounds the campaign by count instead: every
	// draw below Draws that Shard owns is judged, past violations, so that
	// the shards of a campaign together judge exactly its draws whatever
	// each found or how long each took. Duration is then unused.
	Draws int
	// Shard is the stream of draws this campaign makes; the zero value is
	// all of them.
	Shard Shard
	// Client, when set, is the client under test of every draw
	// (generators.UseClient: NAME or NAME@VERSION; the roles it cannot
	// run stay librdkafka); "" keeps the draws' own, librdkafka.
	Client string
	Judge  Judge
	// Parallel is how many draws are judged at once (0 or 1: one at a
	// time). The report is the same as one at a time: draws are counted
	// in order, and those judged past the campaign's end (after the first
	// violation) are dropped. Judging runs ahead of counting by up to
	// aheadPerJudge draws per place, so that a slow draw holds back the
	// count but not the judging of the draws after it. Only for judges
	// that may run concurrently (the simulation's: each draw in a child
	// process that plays one draw at a time).
	Parallel int
	// K is the runs per shrink candidate; 0 means DefaultK. Shrink false
	// stops at the violation as found.
	K      int
	Shrink bool
	// OutDir receives minimal.json and shrink.log of a shrunk violation.
	OutDir string
	// Progress, when set, gets a line per draw; TTY says it is a terminal,
	// where that line is rewritten in place (as runner's progress is).
	Progress io.Writer
	TTY      bool
	// Clusters, when set, is how many clusters the draws have started so
	// far (runner.Reuse.Started of the cluster they share); nil when each
	// draw starts its own.
	Clusters func() int
}

// Found is a violating draw.
type Found struct {
	Draw     int
	Scenario generators.Scenario
	Verdict  Verdict
	// After is the campaign's time to it.
	After time.Duration
}

// Drawn is one draw a campaign made: its place in the campaign, the
// generators' seed it was drawn from, what coverage counts of it and how
// it ended (held, violated, not-live or harness-error).
type Drawn struct {
	Index   int      `json:"index"`
	Seed    int64    `json:"seed"`
	Name    string   `json:"name"`
	Config  string   `json:"configuration"`
	Kinds   []string `json:"kinds"`
	Outcome string   `json:"outcome"`
	// LateRequests are its requests still unanswered when their
	// transaction ended, by API and answer (Verdict.LateRequests).
	LateRequests counts.Counts `json:"late-requests,omitempty"`
}

// Outcomes of a draw.
const (
	OutcomeHeld     = "held"
	OutcomeViolated = "violated"
	OutcomeNotLive  = "not-live"
	OutcomeError    = "harness-error"
)

// Report is what a campaign did.
type Report struct {
	Draws, Errors int
	FaultsFired   int64
	Elapsed       time.Duration
	// Simulated is the virtual time the draws' runs took (Verdict.Simulated).
	Simulated time.Duration
	Coverage  *Coverage
	// Drawn are the draws made, in the order made.
	Drawn []Drawn
	// Found is the first violation (nil: none), Shrunk its shrink;
	// Violations are all of them (more than one only when bounded by
	// Campaign.Draws).
	Found      *Found
	Violations []Found
	// NotLive are the draws that held or violated nothing but were not
	// live (Verdict.NotLive), their run directories kept.
	NotLive []Found
	Shrunk  *Shrunk
	// LastError is the last harness error of a draw.
	LastError error
	// Clusters is how many clusters the draws started (Campaign.Clusters);
	// 0 when not counted.
	Clusters int
	// LateRequests adds up the draws' Verdict.LateRequests.
	LateRequests counts.Counts
}

// Summary is a campaign's numbers, for the summary line and as JSON.
type Summary struct {
	Draws       int   `json:"draws"`
	Errors      int   `json:"harness-errors"`
	NotLive     int   `json:"not-live"`
	FaultsFired int64 `json:"faults-fired"`
	ElapsedNs   int64 `json:"elapsed-ns"`
	// Clusters is how many clusters the draws started, DrawsPerCluster
	// their ratio; both absent when not counted.
	Clusters        int     `json:"clusters-started,omitempty"`
	DrawsPerCluster float64 `json:"draws-per-cluster,omitempty"`
	// SimulatedNs is the virtual time the draws' runs took, on the
	// simulation; absent on real clusters.
	SimulatedNs int64 `json:"simulated-ns,omitempty"`
	// LateRequests are the draws' transaction requests still unanswered
	// when their transaction ended, by API and answer: how often a
	// campaign made KAFKA-17754's late arrival, and what the brokers did
	// with it.
	LateRequests counts.Counts `json:"late-requests,omitempty"`
}

// Summary is r's numbers.
func (r Report) Summary() Summary {
	s := Summary{Draws: r.Draws, Errors: r.Errors, NotLive: len(r.NotLive), FaultsFired: r.FaultsFired, ElapsedNs: int64(r.Elapsed), Clusters: r.Clusters,
		SimulatedNs: int64(r.Simulated), LateRequests: r.LateRequests}
	if r.Clusters > 0 {
		s.DrawsPerCluster = float64(r.Draws) / float64(r.Clusters)
	}
	return s
}

// String is the summary line's numbers: draws, time, faults, harness
// errors, draws not live and, when counted, the clusters started and
// draws per cluster; on the simulation, draws per minute and simulated
// seconds per wall second; the late requests, when there were any.
func (s Summary) String() string {
	out := fmt.Sprintf("%d draws in %s, %d faults fired, %d harness errors, %d not live",
		s.Draws, time.Duration(s.ElapsedNs).Round(time.Second), s.FaultsFired, s.Errors, s.NotLive)
	if s.Clusters > 0 {
		out += fmt.Sprintf(", %d clusters started (%.1f draws per cluster)", s.Clusters, s.DrawsPerCluster)
	}
	if s.SimulatedNs > 0 && s.ElapsedNs > 0 {
		out += fmt.Sprintf(", %.0f draws a minute, %.0f simulated seconds per wall second",
			float64(s.Draws)/time.Duration(s.ElapsedNs).Minutes(), float64(s.SimulatedNs)/float64(s.ElapsedNs))
	}
	if len(s.LateRequests) > 0 {
		out += "; requests unanswered when their transaction ended: " + s.LateRequests.String()
	}
	return out
}

// Run draws and judges until the duration ends, the context ends or a draw
// violates its claim (with Draws: until its draws are judged or the
// context ends); then shrinks the first violation when asked.
func (c Campaign) Run(ctx context.Context) (Report, error) {
	if c.Judge == nil || (c.Duration <= 0 && c.Draws <= 0) {
		return Report{}, errors.New("campaign: needs a judge and a positive duration or draws")
	}
	if err := CheckClient(c.Client); err != nil {
		return Report{}, fmt.Errorf("campaign: %w", err)
	}
	r := Report{Coverage: NewCoverage(c.Gen.Kinds)}
	began := time.Now()
	dctx, cancel := c.bounded(ctx, began)
	defer cancel()
	a := c.ahead(ctx, dctx)
	defer a.stop()
	for j := range a.judged {
		if j.err != nil {
			return r, j.err
		}
		c.record(&r, j, began)
		c.progress(r, began)
		if r.Draws == allFailedAfter && r.Errors == r.Draws {
			r.Elapsed = time.Since(began)
			return r, fmt.Errorf("campaign: its first %d draws all ended in a harness error, so it can judge nothing; the last: %w", r.Draws, r.LastError)
		}
		if r.Found != nil && c.Draws <= 0 {
			break
		}
		a.next()
	}
	if c.Progress != nil && c.TTY && r.Draws > 0 {
		fmt.Fprintln(c.Progress) // end the rewritten line: what follows has its own
	}
	r.Elapsed = time.Since(began)
	if r.Found != nil && c.Shrink {
		sh, err := c.shrink(ctx, *r.Found)
		r.Shrunk = &sh
		return r, err
	}
	return r, nil
}

// allFailedAfter is how many draws, all harness errors, end a campaign: a
// set-up that fails every draw (a missing tool, an unreachable cluster)
// otherwise repeats the failure until the duration is over, as fast as it
// fails. One success among them lets the campaign go on: a fault kind that
// breaks the harness now and then is worth counting, not stopping for.
const allFailedAfter = 10

// bounded is the context the draws start under: ctx until Duration, or
// ctx itself when the campaign is bounded by Draws.
func (c Campaign) bounded(ctx context.Context, began time.Time) (context.Context, context.CancelFunc) {
	if c.Draws > 0 {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, began.Add(c.Duration))
}

// more reports whether draw i is to be made, a violation aside (the
// campaign stops drawing on its own when it records one).
func (c Campaign) more(ctx context.Context, i int) bool {
	if c.Draws > 0 {
		return ctx.Err() == nil && i < c.Draws
	}
	return ctx.Err() == nil
}

// judged is a draw made and judged, not yet counted.
type judged struct {
	i int
	s generators.Scenario
	v Verdict
	// verr is the run's harness error; err one of the draw itself (the
	// space admits nothing), which ends the campaign.
	verr, err error
}

// ahead judges the campaign's draws, Parallel at once, and hands them
// over in draw order.
type ahead struct {
	judged chan judged
	// tokens are the places of draws judged or being judged and not yet
	// counted; running those of draws being judged.
	tokens, running chan struct{}
	stopped         chan struct{}
	once            sync.Once
}

// aheadPerJudge is how many draws per place in Parallel may be judged
// before the draw counted next: a simulated draw takes tens of
// milliseconds but a stalled one seconds, which a window this deep lets
// the other places fill with draws. One place (a real cluster's campaign,
// where each draw takes a minute) judges no draw ahead: past a violation
// it would only be dropped.
const aheadPerJudge = 64

// ahead starts judging the draws that dctx and Draws allow, each under
// ctx (a draw runs to its end even past the deadline: a cut run has no
// verdict); a draw starts only while fewer than Parallel are being judged
// and fewer than aheadPerJudge times as many are judged and not yet
// counted (next), and none after stop.
func (c Campaign) ahead(ctx, dctx context.Context) *ahead {
	p := max(1, c.Parallel)
	window := p
	if p > 1 {
		window = p * aheadPerJudge
	}
	a := &ahead{judged: make(chan judged), tokens: make(chan struct{}, window), running: make(chan struct{}, p), stopped: make(chan struct{})}
	for range window {
		a.tokens <- struct{}{}
	}
	for range p {
		a.running <- struct{}{}
	}
	results := make(chan chan judged, window)
	go func() {
		defer close(results)
		for k := 0; a.take() && c.more(dctx, c.Shard.Index(k)); k++ {
			rc := make(chan judged, 1)
			results <- rc
			go func() {
				rc <- c.judge(ctx, c.Shard.Index(k))
				a.running <- struct{}{}
			}()
		}
	}()
	go func() {
		defer close(a.judged)
		for rc := range results {
			a.judged <- <-rc
		}
	}()
	return a
}

// take waits for a free place and a free judge; false once stopped.
func (a *ahead) take() bool {
	select {
	case <-a.stopped:
		return false
	default:
	}
	for _, free := range []chan struct{}{a.tokens, a.running} {
		select {
		case <-a.stopped:
			return false
		case <-free:
		}
	}
	return true
}

// next frees the place of a draw counted.
func (a *ahead) next() { a.tokens <- struct{}{} }

// stop starts no more draws and waits for those started, dropping them.
func (a *ahead) stop() {
	a.once.Do(func() { close(a.stopped) })
	for range a.judged {
	}
}

// judge makes and judges draw i.
func (c Campaign) judge(ctx context.Context, i int) judged {
	s, err := Draw(c.Gen, c.Space, c.Seed, i)
	if err != nil {
		return judged{i: i, err: err}
	}
	if c.Client != "" {
		name, version, _ := generators.ParseClient(c.Client) // checked by Run
		generators.UseClient(&s, name, version)
	}
	v, verr := c.Judge(ctx, s)
	return judged{i: i, s: s, v: v, verr: verr}
}

// record counts j in r.
func (c Campaign) record(r *Report, j judged, began time.Time) {
	i, s, v, err := j.i, j.s, j.v, j.verr
	r.Draws++
	r.Coverage.Add(s)
	d := Drawn{Index: i, Seed: s.Seed, Name: s.Name, Config: ConfigOf(s), Kinds: KindsOf(s), Outcome: OutcomeHeld}
	found := Found{Draw: i, Scenario: s, Verdict: v, After: time.Since(began)}
	switch {
	case err != nil:
		r.Errors, r.LastError = r.Errors+1, fmt.Errorf("draw %d (%s): %w", i, s.Name, err)
		d.Outcome = OutcomeError
	case v.Violated:
		r.Violations = append(r.Violations, found)
		if r.Found == nil {
			first := found
			r.Found = &first
		}
		d.Outcome = OutcomeViolated
	case v.NotLive != "":
		r.NotLive = append(r.NotLive, found)
		d.Outcome = OutcomeNotLive
	}
	if err == nil {
		r.FaultsFired += v.FaultsFired
		r.Simulated += v.Simulated
		r.LateRequests = r.LateRequests.Add(v.LateRequests)
		d.LateRequests = v.LateRequests
	}
	r.Drawn = append(r.Drawn, d)
	if c.Clusters != nil {
		r.Clusters = c.Clusters()
	}
}

func (c Campaign) progress(r Report, began time.Time) {
	if c.Progress == nil {
		return
	}
	el := time.Since(began)
	bound := c.Duration.String()
	if c.Draws > 0 {
		bound = fmt.Sprintf("%d draws", c.Draws)
	}
	line := fmt.Sprintf("explore: %s/%s  draws %d  faults fired %d  violations %d  not live %d  errors %d  runs/hour %.0f",
		el.Truncate(time.Second), bound, r.Draws, r.FaultsFired, len(r.Violations), len(r.NotLive), r.Errors, float64(r.Draws)/el.Hours())
	if r.Clusters > 0 {
		line += fmt.Sprintf("  clusters %d", r.Clusters)
	}
	if c.TTY {
		fmt.Fprintf(c.Progress, "\r%s\033[K", line)
		return
	}
	fmt.Fprintln(c.Progress, line)
}

// shrink shrinks f, writing the log as it goes and the minimal scenario at
// the end into OutDir.
func (c Campaign) shrink(ctx context.Context, f Found) (Shrunk, error) {
	k := c.K
	if k <= 0 {
		k = DefaultK
	}
	var log io.Writer = io.Discard
	if c.OutDir != "" {
		if err := os.MkdirAll(c.OutDir, 0o755); err != nil {
			return Shrunk{}, err
		}
		lf, err := os.Create(filepath.Join(c.OutDir, "shrink.log"))
		if err != nil {
			return Shrunk{}, err
		}
		defer lf.Close()
		fmt.Fprintf(lf, "shrinking draw %d (%s), k=%d: %s, expected %s, observed %s, anomalies %v, run dir %s\n",
			f.Draw, f.Scenario.Name, k, SizeOf(f.Scenario), f.Verdict.Expected, f.Verdict.Observed, f.Verdict.Anomalies, f.Verdict.Dir)
		log = lf
		if c.Progress != nil {
			log = io.MultiWriter(lf, c.Progress)
		}
	}
	sh := Shrink(ctx, f.Scenario, f.Verdict, c.Judge, k, log)
	fmt.Fprintf(log, "minimal: %s, run dir %s, %d runs in %s\n", SizeOf(sh.Scenario), sh.Verdict.Dir, sh.Runs, sh.Elapsed.Round(time.Second))
	if c.OutDir == "" {
		return sh, nil
	}
	return sh, generators.Save(filepath.Join(c.OutDir, "minimal.json"), sh.Scenario)
}

// CheckClient refuses a Campaign.Client that names no client ("" is the
// draws' own).
func CheckClient(client string) error {
	if client == "" {
		return nil
	}
	name, _, err := generators.ParseClient(client)
	if err == nil && !slices.Contains(generators.ClientNames(), name) {
		err = fmt.Errorf("unknown client %q, want one of %v", name, generators.ClientNames())
	}
	return err
}
