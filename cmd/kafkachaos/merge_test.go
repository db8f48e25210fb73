package main

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/explore"
	"github.com/kafkachaos/kafkachaos/sim"
	"github.com/kafkachaos/kafkachaos/sim/simrun"
)

// simShard runs shard of a weak campaign of 12 draws on the simulation,
// as `explore --cluster sim --space weak --seed 4 --draws 12 --shard S
// --out OUT --runs OUT/runs` does, and returns what it printed. Seed 4's
// draws replay their verdicts exactly (12 campaigns of them alike; the
// simulation's replay is not exact for every draw, see package sim): 4
// violations and a draw not live, spread over the shards.
func simShard(t *testing.T, pl *sim.Player, out string, shard explore.Shard) string {
	t.Helper()
	judge, err := explore.ClaimJudge(explore.SpaceWeak.Claim(), simrun.Run(pl, filepath.Join(out, "runs")))
	if err != nil {
		t.Fatal(err)
	}
	c := explore.Campaign{Gen: sim.Space(), Space: explore.SpaceWeak, Seed: 4, Draws: 12, Shard: shard, Judge: judge, K: 1, OutDir: out}
	rep, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := writeExplore(&b, c, rep); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// findings are a report's coverage table and its VIOLATED and NOT LIVE
// lines without their times and run directories (those of one campaign
// and of its shards differ).
func findings(report string) string {
	table := regexp.MustCompile(`(?s)configuration .*?\nvisited [^\n]*\n`).FindString(report)
	afterTime := regexp.MustCompile(` after [0-9hms.]+:`)
	var lines []string
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "VIOLATED") || strings.HasPrefix(l, "NOT LIVE") {
			lines = append(lines, afterTime.ReplaceAllString(l[:strings.LastIndex(l, "run dir")], ""))
		}
	}
	return table + strings.Join(lines, "\n")
}

// Four shards of a campaign on the simulation, merged, give the coverage
// table, violations and draws not live of the unsharded campaign of the
// same draws; the merged output's run directories resolve through the
// links to the shards; a shard merged twice is refused.
func TestExploreShardsMergeAsOneCampaignOnSim(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "sim.test")
	if err := sim.BuildChild(context.Background(), bin); err != nil {
		t.Fatal(err)
	}
	pl := sim.NewPlayer(bin)
	defer func() {
		if err := pl.Close(); err != nil {
			t.Error(err)
		}
	}()
	whole := simShard(t, pl, filepath.Join(root, "whole"), explore.Shard{})
	if !strings.Contains(whole, "VIOLATED") || !strings.Contains(whole, "12 draws") {
		t.Fatalf("the unsharded campaign found no violation in 12 draws:\n%s", whole)
	}
	args := []string{"merge", filepath.Join(root, "merged")}
	for i := 1; i <= 4; i++ {
		out := filepath.Join(root, "shard"+string(rune('0'+i)))
		simShard(t, pl, out, explore.Shard{I: i, N: 4})
		args = append(args, out)
	}
	var merged, errb strings.Builder
	if code := dispatch(args, &merged, &errb); code != exitInvalid {
		t.Fatalf("merge: exit %d, want %d (violations)\nstderr: %s", code, exitInvalid, errb.String())
	}
	if got, want := findings(merged.String()), findings(whole); got != want {
		t.Errorf("merged shards:\n%s\nwant as the unsharded campaign:\n%s", got, want)
	}
	if !strings.Contains(merged.String(), "shards 1/4 2/4 3/4 4/4: 12 draws") || !strings.Contains(merged.String(), "draws 0..11 all made") {
		t.Errorf("merged report:\n%s", merged.String())
	}
	m, err := explore.LoadOutput(filepath.Join(root, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Violations {
		if _, err := os.Stat(filepath.Join(f.Dir, "history.jsonl")); err != nil {
			t.Errorf("violation of draw %d: %v", f.Draw, err)
		}
	}
	var out2, errb2 strings.Builder
	again := []string{"merge", filepath.Join(root, "merged2"), args[2], args[3], args[2]}
	if code := dispatch(again, &out2, &errb2); code != exitError || !strings.Contains(errb2.String(), "shard 1/4 is also in") {
		t.Errorf("a shard merged twice: exit %d, stderr %q", code, errb2.String())
	}
}

// --shard and --draws reach the campaign, whose output directory names
// its shard.
func TestExplorePassesShardAndDrawsThrough(t *testing.T) {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	var ef exploreFlags
	ef.register(fs)
	if err := fs.Parse([]string{"--shard", "2/4", "--draws", "40", "--seed", "7", "--runs", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	c, end, err := ef.campaign(fs, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := end(); err != nil {
		t.Error(err)
	}
	if c.Shard != (explore.Shard{I: 2, N: 4}) || c.Draws != 40 || !strings.Contains(filepath.Base(c.OutDir), "seed7-shard2of4-") {
		t.Errorf("shard %v, draws %d, out %s", c.Shard, c.Draws, c.OutDir)
	}
}

func TestMergeRefusesBadArguments(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{dir}, "usage: kafkachaos merge OUT DIR..."},
		{[]string{filepath.Join(dir, "out"), filepath.Join(dir, "none")}, explore.OutputFile},
	} {
		var out, errb strings.Builder
		if code := dispatch(append([]string{"merge"}, tc.args...), &out, &errb); code != exitError || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("merge %v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), exitError, tc.want)
		}
	}
}
