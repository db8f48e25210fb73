package explore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

func TestParseShard(t *testing.T) {
	for _, good := range []string{"1/1", "3/4", "4/4"} {
		if sh, err := ParseShard(good); err != nil || sh.String() != good {
			t.Errorf("%q: %v, %v", good, sh, err)
		}
	}
	for in, want := range map[string]string{"0/4": "1 <= I <= N", "5/4": "1 <= I <= N", "x": "want I/N", "1/0": "1 <= I <= N", "2/x": "want I/N"} {
		if _, err := ParseShard(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// byScenario judges a draw by its seed alone, as a deterministic cluster
// would: some violate, some are not live, the rest hold.
func byScenario(_ context.Context, s generators.Scenario) (Verdict, error) {
	return Verdict{Violated: s.Seed%3 == 0, NotLive: map[bool]string{true: "never recovered"}[s.Seed%3 == 1],
		Expected: "exactly-once", Observed: "at-least-once", Anomalies: []string{"duplicate"}, Dir: "/runs/" + s.Name}, nil
}

// shardOutputs runs n shards of a campaign of draws draws and returns
// their outputs.
func shardOutputs(t *testing.T, n, draws int) []Output {
	t.Helper()
	var outs []Output
	for i := 1; i <= n; i++ {
		c := Campaign{Gen: GenSpace("embedded"), Space: SpaceWeak, Seed: 5, Draws: draws, Shard: Shard{I: i, N: n}, Judge: byScenario}
		rep, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, NewOutput(c, rep))
	}
	return outs
}

func report(o Output) string {
	var b strings.Builder
	o.Coverage().Write(&b)
	for _, f := range o.Violations {
		fmt.Fprintln(&b, f.Draw, f.Name, f.Dir)
	}
	for _, f := range o.NotLive {
		fmt.Fprintln(&b, "not live", f.Draw, f.Name)
	}
	return b.String()
}

// The shards of a campaign bounded by draws make disjoint draws whose
// union is the unsharded campaign's, going past violations; merged, they
// give its coverage table, violations and draws not live.
func TestShardsMergeIntoTheUnshardedCampaign(t *testing.T) {
	whole := shardOutputs(t, 1, 23)[0]
	if len(whole.Drawn) != 23 || len(whole.Violations) < 2 || len(whole.NotLive) == 0 {
		t.Fatalf("unsharded: %d draws, %d violations, %d not live; want 23 draws judged past several violations",
			len(whole.Drawn), len(whole.Violations), len(whole.NotLive))
	}
	for n := 2; n <= 5; n++ {
		outs := shardOutputs(t, n, 23)
		seen := map[int64]int{}
		for k, o := range outs {
			for _, d := range o.Drawn {
				if prev, dup := seen[d.Seed]; dup {
					t.Errorf("%d shards: draw %d (seed %d) made by shards %d and %d", n, d.Index, d.Seed, prev+1, k+1)
				}
				seen[d.Seed] = k
			}
		}
		m, err := Merge(slices.Repeat([]string{"shard"}, n), outs)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(m.Drawn, whole.Drawn, func(a, b Drawn) bool { return a.Index == b.Index && a.Seed == b.Seed }) {
			t.Errorf("%d shards drew %v, want the unsharded campaign's %v", n, m.Drawn, whole.Drawn)
		}
		if got, want := report(m), report(whole); got != want {
			t.Errorf("%d shards merged:\n%s\nwant as unsharded:\n%s", n, got, want)
		}
		if s := m.Summary; s.Draws != 23 || s.NotLive != len(whole.NotLive) {
			t.Errorf("%d shards: summary %+v", n, s)
		}
		if made := m.Made(); !strings.Contains(made, "draws 0..22 all made") || strings.Contains(made, "beyond") || strings.Contains(made, "missing") {
			t.Errorf("%d shards: %q", n, made)
		}
	}
}

// Shards bounded by time make uneven prefixes of their streams: the merge
// says which run of draws from 0 it holds whole, how many lie beyond and
// which shards are missing.
func TestMadeSaysWhatAnUnevenMergeHolds(t *testing.T) {
	outs := shardOutputs(t, 4, 12)
	outs[0].Drawn = outs[0].Drawn[:2] // draws 0 and 4: shard 1 stopped before draw 8
	m, err := Merge([]string{"a", "b", "c"}, outs[:3])
	if err != nil {
		t.Fatal(err)
	}
	want := "draws: 8 made; draws 0..2 all made (the unsharded campaign's first 3); 5 beyond them; missing shards 4/4"
	if got := m.Made(); got != want {
		t.Errorf("made %q\nwant %q", got, want)
	}
}

func TestMergeRefusesOutputsOfAnotherCampaign(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		edit       func(a, b *Output)
	}{
		{"space", "space safe (claim model), want weak (claim exactly-once)", func(_, b *Output) { b.Space, b.Claim = SpaceSafe, ClaimModel }},
		{"seed", "seed 6, want 5", func(_, b *Output) { b.Seed = 6 }},
		{"client", `client "java@3.8.0", want ""`, func(_, b *Output) { b.Client = "java@3.8.0" }},
		{"generators", "generator-space field Provider is \"docker\", want \"embedded\"", func(_, b *Output) { b.Gen.Provider = "docker" }},
		{"bound", "draws bound 9, want 8", func(_, b *Output) { b.Draws = 9 }},
		{"shard count", "shards of 3, want of 2", func(_, b *Output) { b.Shards = []Shard{{I: 2, N: 3}} }},
		{"same shard", "b: shard 1/2 is also in a", func(_, b *Output) { b.Shards = []Shard{{I: 1, N: 2}} }},
		{"same draw", "b: draw 1 (seed 5000015000) is also in a", func(a, b *Output) { b.Drawn[0].Seed = a.Drawn[0].Seed }},
	} {
		outs := shardOutputs(t, 2, 8)
		tc.edit(&outs[0], &outs[1])
		if _, err := Merge([]string{"a", "b"}, outs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// An output saved and loaded keeps what it holds; the paths inside its
// directory are relative in the file, so that the directory can move.
func TestOutputSavesAndLoads(t *testing.T) {
	dir := t.TempDir()
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceWeak, Seed: 5, Duration: time.Minute, Shard: Shard{I: 2, N: 3}, OutDir: dir}
	inDir := filepath.Join(dir, "runs", "r1")
	rep := Report{Drawn: []Drawn{{Index: 1, Seed: 7, Config: "acks=1", Kinds: []string{"kill"}, Outcome: OutcomeViolated}},
		Violations: []Found{{Draw: 1, Verdict: Verdict{Violated: true, Dir: inDir}}}, NotLive: []Found{{Draw: 4, Verdict: Verdict{NotLive: "x", Dir: "/elsewhere/r4"}}}}
	o := NewOutput(c, rep)
	if err := o.Save(dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, OutputFile))
	if !strings.Contains(string(b), `"dir": "runs/r1"`) || !strings.Contains(string(b), `"dir": "/elsewhere/r4"`) {
		t.Errorf("%s: want the path inside relative, the one outside absolute:\n%s", OutputFile, b)
	}
	back, err := LoadOutput(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Violations[0].Dir != inDir || back.NotLive[0].Dir != "/elsewhere/r4" || back.Shards[0] != (Shard{I: 2, N: 3}) || back.DurationNs != int64(time.Minute) {
		t.Errorf("loaded %+v", back)
	}
	text, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	if !strings.Contains(string(text), "seed 5, shard 2/3: 0 draws") || !strings.Contains(string(text), "VIOLATED: draw 1") {
		t.Errorf("%s:\n%s", ReportFile, text)
	}
}

func TestLoadOutputNamesFileLineAndField(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]string{
		"{\n  \"space\": \"weak\",\n  \"seed\": \"x\"\n}":                                       "line 3: field seed",
		"{\n  \"space\": \"weak\",\n  \"shards\": [\"0/4\"]\n}":                                 `shard "0/4"`,
		"{\n  \"space\": \"strong\",\n  \"shards\": [\"1/1\"]\n}":                               "field space",
		"{\n  \"space\": \"weak\",\n  \"shards\": [\"1/2\"],\n  \"draws\": [{\"index\": 1}]\n}": "draw 1 is of none of shards",
		"{\n  \"space\": \"weak\",\n  \"extra\": 1\n}":                                          "unknown field",
	} {
		if err := os.WriteFile(filepath.Join(dir, OutputFile), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadOutput(dir)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), filepath.Join(dir, OutputFile)) {
			t.Errorf("%s: error %v, want the file and %q", text, err, want)
		}
	}
}
