package explore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

// A campaign's output directory holds OutputFile, its record, and
// ReportFile, the report as printed; a shrunk violation's minimal.json
// and shrink.log beside them.
const (
	OutputFile = "campaign.json"
	ReportFile = "report.txt"
)

// Output is a campaign's record: what it drew and found, enough to print
// its report again and to merge the outputs of a campaign's shards into
// the output of the whole. Paths are absolute in memory; in OutputFile
// those inside its directory are relative to it, so that the directory
// can move (a CI artifact).
type Output struct {
	Space Space            `json:"space"`
	Claim string           `json:"claim"`
	Gen   generators.Space `json:"generator-space"`
	Seed  int64            `json:"seed"`
	// Client is the campaign's client under test (Campaign.Client); ""
	// for the draws' own.
	Client string `json:"client,omitempty"`
	// Shards are the shards the output holds: one for a campaign's own
	// (1/1 unsharded), those merged for a merge.
	Shards []Shard `json:"shards"`
	// Draws is the campaign's bound in draws (Campaign.Draws), 0 when it
	// was bounded by DurationNs.
	Draws      int   `json:"draws-bound,omitempty"`
	DurationNs int64 `json:"duration-ns,omitempty"`
	// Drawn are the draws made, by index.
	Drawn      []Drawn        `json:"draws"`
	Violations []Finding      `json:"violations"`
	NotLive    []Finding      `json:"not-live"`
	Shrunk     []ShrinkRecord `json:"shrunk"`
	Summary    Summary        `json:"summary"`
	LastError  string         `json:"last-error,omitempty"`
}

// Finding is a draw that violated its claim or was not live.
type Finding struct {
	Draw      int      `json:"draw"`
	Name      string   `json:"name"`
	AfterNs   int64    `json:"after-ns"`
	Expected  string   `json:"expected"`
	Observed  string   `json:"observed"`
	Anomalies []string `json:"anomalies,omitempty"`
	Breaks    []string `json:"breaks,omitempty"`
	NotLive   string   `json:"not-live,omitempty"`
	Dir       string   `json:"dir"`
}

// ShrinkRecord is a violation's shrink: the sizes it went from and to, its
// runs and candidates, the minimal run's directory (Dir) and the one
// holding minimal.json and shrink.log (Out).
type ShrinkRecord struct {
	Draw       int    `json:"draw"`
	From       string `json:"from"`
	To         string `json:"to"`
	Runs       int    `json:"runs"`
	Candidates int    `json:"candidates"`
	ElapsedNs  int64  `json:"elapsed-ns"`
	Dir        string `json:"dir"`
	Out        string `json:"out"`
	// Stopped: the shrink was stopped before it ended, so a smaller
	// scenario may still fail.
	Stopped bool `json:"stopped,omitempty"`
}

// NewOutput is c's output after it ran rep.
func NewOutput(c Campaign, rep Report) Output {
	o := Output{Space: c.Space, Claim: c.Space.Claim(), Gen: c.Gen, Seed: c.Seed, Client: c.Client, Shards: []Shard{c.Shard.whole()},
		Draws: c.Draws, Drawn: rep.Drawn, Summary: rep.Summary()}
	if c.Draws == 0 {
		o.DurationNs = int64(c.Duration)
	}
	for _, f := range rep.Violations {
		o.Violations = append(o.Violations, findingOf(f))
	}
	for _, f := range rep.NotLive {
		o.NotLive = append(o.NotLive, findingOf(f))
	}
	if sh := rep.Shrunk; sh != nil {
		o.Shrunk = []ShrinkRecord{{Draw: rep.Found.Draw, From: SizeOf(rep.Found.Scenario).String(), To: SizeOf(sh.Scenario).String(), Runs: sh.Runs,
			Candidates: len(sh.Log), ElapsedNs: int64(sh.Elapsed), Dir: sh.Verdict.Dir, Out: c.OutDir, Stopped: sh.Stopped}}
	}
	if rep.LastError != nil {
		o.LastError = rep.LastError.Error()
	}
	return o
}

func findingOf(f Found) Finding {
	v := f.Verdict
	return Finding{Draw: f.Draw, Name: f.Scenario.Name, AfterNs: int64(f.After), Expected: v.Expected, Observed: v.Observed,
		Anomalies: v.Anomalies, Breaks: v.Breaks, NotLive: v.NotLive, Dir: v.Dir}
}

// Coverage is the coverage table of o's draws.
func (o Output) Coverage() *Coverage {
	c := NewCoverage(o.Gen.Kinds)
	for _, d := range o.Drawn {
		c.count(d.Config, d.Kinds)
	}
	return c
}

// sharded reports whether o is other than a whole campaign's.
func (o Output) sharded() bool { return len(o.Shards) != 1 || o.Shards[0].whole() != Shard{I: 1, N: 1} }

// Write prints o's report: the summary line, which draws of the campaign
// it holds when sharded, the coverage table, the draws not live, the
// violations and their shrinks.
func (o Output) Write(w io.Writer) {
	fmt.Fprintf(w, "explore: space %s (claim %s), seed %d%s: %s\n", o.Space, o.Claim, o.Seed, o.shardsText(), o.Summary)
	if o.sharded() {
		fmt.Fprintln(w, o.Made())
	}
	o.Coverage().Write(w)
	for _, f := range o.NotLive {
		fmt.Fprintf(w, "NOT LIVE: draw %d (%s) after %s: %s; run dir %s\n",
			f.Draw, f.Name, time.Duration(f.AfterNs).Round(time.Second), f.NotLive, f.Dir)
	}
	for _, f := range o.Violations {
		fmt.Fprintf(w, "VIOLATED: draw %d (%s) after %s: expected %s, observed %s, anomalies %v, run dir %s\n",
			f.Draw, f.Name, time.Duration(f.AfterNs).Round(time.Second), f.Expected, f.Observed, f.Anomalies, f.Dir)
		for _, b := range f.Breaks {
			fmt.Fprintln(w, "  broke:", b)
		}
	}
	for _, sh := range o.Shrunk {
		how := "shrunk"
		if sh.Stopped {
			how = "shrunk until the shrink was stopped"
		}
		fmt.Fprintf(w, "draw %d %s in %s (%d runs, %d candidates) from %s to %s\nminimal run dir: %s\nminimal scenario and shrink log: %s\n",
			sh.Draw, how, time.Duration(sh.ElapsedNs).Round(time.Second), sh.Runs, sh.Candidates, sh.From, sh.To, sh.Dir, sh.Out)
	}
	if len(o.Violations) == 0 {
		fmt.Fprintln(w, "no draw violated its claim")
	}
}

func (o Output) shardsText() string {
	if !o.sharded() {
		return ""
	}
	names := make([]string, len(o.Shards))
	for i, sh := range o.Shards {
		names[i] = sh.String()
	}
	if len(names) == 1 {
		return ", shard " + names[0]
	}
	return ", shards " + strings.Join(names, " ")
}

// Made says which of the campaign's draws o holds: how many, the longest
// run of them from draw 0 (the draws an unsharded campaign of that many
// makes), how many lie beyond it (shards that made more draws than
// others in their time, or went past a violation), and the shards
// missing.
func (o Output) Made() string {
	have := map[int]bool{}
	for _, d := range o.Drawn {
		have[d.Index] = true
	}
	prefix := 0
	for have[prefix] {
		prefix++
	}
	out := fmt.Sprintf("draws: %d made; draws 0..%d all made (the unsharded campaign's first %d)", len(o.Drawn), prefix-1, prefix)
	if beyond := len(o.Drawn) - prefix; beyond > 0 {
		out += fmt.Sprintf("; %d beyond them", beyond)
	}
	if missing := o.missing(); len(missing) > 0 {
		out += "; missing shards " + strings.Join(missing, " ")
	}
	return out
}

func (o Output) missing() []string {
	var missing []string
	n := o.Shards[0].whole().N
	for i := 1; i <= n; i++ {
		if !slices.Contains(o.Shards, Shard{I: i, N: n}) {
			missing = append(missing, Shard{I: i, N: n}.String())
		}
	}
	return missing
}

// paths are o's path fields, for making them relative and absolute.
func (o *Output) paths() []*string {
	var ps []*string
	for i := range o.Violations {
		ps = append(ps, &o.Violations[i].Dir)
	}
	for i := range o.NotLive {
		ps = append(ps, &o.NotLive[i].Dir)
	}
	for i := range o.Shrunk {
		ps = append(ps, &o.Shrunk[i].Dir, &o.Shrunk[i].Out)
	}
	return ps
}

// Rebase moves o's paths under from to under to: a shard's paths to where
// a merge links its directory.
func (o *Output) Rebase(from, to string) {
	for _, p := range o.paths() {
		if rel, ok := inside(from, *p); ok {
			*p = filepath.Join(to, rel)
		}
	}
}

// inside is p relative to dir when p is dir or below it.
func inside(dir, p string) (string, bool) {
	if p == "" || !filepath.IsAbs(p) {
		return "", false
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// Save writes OutputFile and ReportFile into dir, paths inside dir
// relative to it.
func (o Output) Save(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rel := o.clone()
	for _, p := range rel.paths() {
		if r, ok := inside(dir, *p); ok {
			*p = r
		}
	}
	b, err := json.MarshalIndent(rel, "", "  ")
	if err != nil {
		return err
	}
	var report bytes.Buffer
	rel.Write(&report)
	return errors.Join(os.WriteFile(filepath.Join(dir, OutputFile), append(b, '\n'), 0o644),
		os.WriteFile(filepath.Join(dir, ReportFile), report.Bytes(), 0o644))
}

// clone copies the slices whose paths Save rewrites.
func (o Output) clone() Output {
	o.Violations, o.NotLive, o.Shrunk = slices.Clone(o.Violations), slices.Clone(o.NotLive), slices.Clone(o.Shrunk)
	return o
}

// LoadOutput reads dir's OutputFile, its relative paths made absolute;
// errors name the file, and the line and field where known.
func LoadOutput(dir string) (Output, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Output{}, err
	}
	path := filepath.Join(dir, OutputFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return Output{}, err
	}
	var o Output
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return Output{}, fmt.Errorf("%s: %w", path, decodeError(b, dec, err))
	}
	if err := o.validate(); err != nil {
		return Output{}, fmt.Errorf("%s: %w", path, err)
	}
	for _, p := range o.paths() {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	return o, nil
}

// decodeError adds the line, and the field when known, to a decode error.
func decodeError(b []byte, dec *json.Decoder, err error) error {
	at, field := dec.InputOffset(), ""
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		at = se.Offset
	case errors.As(err, &te):
		at, field = te.Offset, " field "+te.Field+":"
	}
	return fmt.Errorf("line %d:%s %w", 1+bytes.Count(b[:min(int(at), len(b))], []byte("\n")), field, err)
}

func (o Output) validate() error {
	if _, err := ParseSpace(string(o.Space)); err != nil {
		return fmt.Errorf("field space: %w", err)
	}
	if len(o.Shards) == 0 {
		return errors.New("field shards: empty")
	}
	for _, sh := range o.Shards {
		if sh.N != o.Shards[0].N {
			return fmt.Errorf("field shards: %s and %s are of different campaigns", o.Shards[0], sh)
		}
	}
	for _, d := range o.Drawn {
		if !slices.ContainsFunc(o.Shards, func(sh Shard) bool { return sh.Owns(d.Index) }) {
			return fmt.Errorf("field draws: draw %d is of none of shards %s", d.Index, o.shardsText())
		}
	}
	return nil
}
