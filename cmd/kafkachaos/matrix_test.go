package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

func TestMatrixBadFlagsExitTwo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rows", "acks-0,nosuch"}, `--rows: unknown id "nosuch"`},
		{[]string{"--columns", "earthquake"}, `--columns: unknown id "earthquake"`},
		{[]string{"--runs", "0"}, "want runs >= 1"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		code, _, errs := cli(t, append([]string{"matrix", "--out", t.TempDir()}, tc.args...)...)
		if code != exitError || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, exitError, tc.want)
		}
	}
}

// A matrix whose only cell cannot apply runs nothing, writes its pages and
// exits 0.
func TestMatrixNACellExitsZero(t *testing.T) {
	out := t.TempDir()
	code, stdout, errs := cli(t, "matrix", "--out", out, "--rows", "transactions", "--columns", "crash-consumer")
	if code != exitValid || !strings.Contains(stdout, "0 cells run, 1 n/a") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
	md, err := os.ReadFile(filepath.Join(out, "MATRIX.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| n/a [1] |") || !strings.Contains(string(md), "the workload has none") {
		t.Errorf("MATRIX.md does not show the n/a cell and its reason:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(out, "matrix.html")); err != nil {
		t.Error(err)
	}
}

// A cell observed weaker than predicted, or whose cluster never came back
// after a heal, makes the command exit 1 and name it; a harness error alone
// exits 2.
func TestMatrixExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(context.Context, generators.Scenario, runner.Options) (runner.Outcome, error)
		code int
		want string
	}{
		{"finding", func(context.Context, generators.Scenario, runner.Options) (runner.Outcome, error) {
			return runner.Outcome{Observed: model.Observation{Producer: model.None, EndToEnd: model.None}}, nil
		}, exitInvalid, "FINDING acks=0 x lost acks"},
		{"not live", func(context.Context, generators.Scenario, runner.Options) (runner.Outcome, error) {
			out := runner.Outcome{Held: true, Observed: model.Observation{Producer: model.AtMostOnce, EndToEnd: model.AtMostOnce}}
			out.Result.Liveness = &checkers.Liveness{Live: false, Kinds: []checkers.KindLiveness{{Kind: "send", NeverRecovered: true}}}
			return out, nil
		}, exitInvalid, "0 finding(s), 1 not live"},
		{"harness error", func(context.Context, generators.Scenario, runner.Options) (runner.Outcome, error) {
			return runner.Outcome{}, io.ErrUnexpectedEOF
		}, exitError, "1 harness error(s), 0 finding(s)"},
	} {
		opts, err := matrixOptions("embedded", "acks-0", "lost-ack", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		opts.Run = tc.run
		var stdout, stderr strings.Builder
		if code := runMatrix(opts, &stdout, &stderr); code != tc.code || !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%s: exit %d, stdout %q; want %d and %q", tc.name, code, stdout.String(), tc.code, tc.want)
		}
	}
}
