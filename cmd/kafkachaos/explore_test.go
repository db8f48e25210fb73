package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/explore"
)

func TestExploreRefusesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--space", "strong"}, `space "strong"`},
		{[]string{"--cluster", "external"}, "--cluster external needs --inventory FILE"},
		{[]string{"--cluster", "nowhere"}, `--cluster "nowhere"`},
		{[]string{"--duration", "0s"}, "positive duration"},
		{[]string{"--k", "0"}, "k >= 1"},
		{[]string{"--save", "x", "--no-shrink"}, "--no-shrink"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--plant", "slow-disk"}, `--plant: plant "slow-disk"`},
		{[]string{"--plant", "non-idempotent-retries", "--space", "weak"}, "use safe or all"},
		{[]string{"--plant", "non-idempotent-retries", "--save", "x"}, "cannot go with --save"},
		{[]string{"--shard", "0/4"}, `--shard: shard "0/4": want 1 <= I <= N`},
		{[]string{"--shard", "5/4"}, `--shard: shard "5/4": want 1 <= I <= N`},
		{[]string{"--shard", "x"}, `--shard: shard "x": want I/N`},
		{[]string{"--draws", "-1"}, "--draws -1: want a positive count"},
		{[]string{"--draws", "3", "--duration", "1m"}, "bounded by one of them"},
		{[]string{"--client", "kafka-streams"}, "--client: "},
		{[]string{"--client", "java", "--cluster", "sim"}, "the simulation runs franz-go only"},
	} {
		var out, errb strings.Builder
		code := dispatch(append([]string{"explore"}, tc.args...), &out, &errb)
		if code != exitError || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), exitError, tc.want)
		}
	}
}

// A campaign whose time is up before its first draw runs nothing, exits 0
// and still prints what it covered (nothing).
func TestExploreWithNoTimeDrawsNothing(t *testing.T) {
	var out, errb strings.Builder
	code := dispatch([]string{"explore", "--duration", "1ns", "--space", "weak", "--runs", t.TempDir()}, &out, &errb)
	if code != exitValid {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	for _, want := range []string{"space weak (claim exactly-once), seed 1: 0 draws", "visited 0 of 0 cells", "no draw violated"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
}

func TestExploreIsListed(t *testing.T) {
	var out, errb strings.Builder
	dispatch([]string{"help"}, &out, &errb)
	if !strings.Contains(errb.String(), "explore ") {
		t.Errorf("help does not list explore:\n%s", errb.String())
	}
}

// --cluster local|docker reaches the runner through each draw's scenario,
// as `kafkachaos run --cluster` does, and real clusters are shared by the
// draws unless --fresh; nothing is run here.
func TestExplorePassesTheClusterThrough(t *testing.T) {
	for _, cl := range []string{"embedded", "local", "docker"} {
		fs := flag.NewFlagSet("explore", flag.ContinueOnError)
		var ef exploreFlags
		ef.register(fs)
		if err := fs.Parse([]string{"--cluster", cl, "--space", "all", "--runs", t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		reuse := ef.reuse()
		if (reuse != nil) != (cl != "embedded") {
			t.Errorf("--cluster %s: reuse %v", cl, reuse != nil)
		}
		ef.fresh = true
		if ef.reuse() != nil {
			t.Errorf("--cluster %s --fresh: the draws share a cluster", cl)
		}
		c, end, err := ef.campaign(fs, io.Discard, reuse)
		if err != nil {
			t.Fatalf("%s: %v", cl, err)
		}
		if err := end(); err != nil {
			t.Errorf("%s: %v", cl, err)
		}
		s, err := explore.Draw(c.Gen, c.Space, c.Seed, 0)
		if err != nil {
			t.Fatalf("%s: %v", cl, err)
		}
		kinds, err := drawableKinds(t.Context(), cl, "")
		if err != nil {
			t.Fatal(err)
		}
		if s.Cluster.Provider != cl || !slices.Equal(c.Gen.Kinds, kinds) {
			t.Errorf("--cluster %s: draw on %q with kinds %v", cl, s.Cluster.Provider, c.Gen.Kinds)
		}
	}
}
