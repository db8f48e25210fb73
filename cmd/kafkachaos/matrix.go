package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/matrix"
	"github.com/kafkachaos/kafkachaos/runner"
)

// matrixCmd is `kafkachaos matrix`: every configuration of the semantics table
// under every fault kind the cluster injects, written to MATRIX.md and
// matrix.html. Exit 0 when no cell is a finding, 1 when one is, 2 on bad
// flags or when a cell's run ended in a harness error.
func matrixCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cluster := fs.String("cluster", "embedded", "cluster provider every run uses")
	runs := fs.Int("runs", 1, "runs per cell")
	out := fs.String("out", "", "directory of MATRIX.md, matrix.html and the cells' runs/ (default $KAFKACHAOS_RUNS/matrix, else runs/matrix in the module root)")
	limit := fs.Duration("time-limit", 0, "each run's time limit (default 3s on embedded, 20s on real brokers)")
	workers := fs.Int("workers", 0, "runs at once (default 2 on embedded, where each run has its own cluster; 1 on real brokers)")
	seed := fs.Int64("seed", 1, "seed of each cell's first run (run i has seed+i)")
	rows := fs.String("rows", "", "comma list of row ids to run (default all): "+idList(matrix.Rows("embedded"), rowID))
	cols := fs.String("columns", "", "comma list of column ids to run (default all): "+idList(matrix.Columns("embedded"), columnID))
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos matrix [--cluster C] [--runs N] [--out DIR] [--time-limit D]")
		fmt.Fprintln(stderr, "exit status: 0 no finding, 1 a cell observed weaker than predicted, 2 bad flags or a harness error")
		fs.PrintDefaults()
	}
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	opts, err := matrixOptions(*cluster, *rows, *cols, *out)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err == nil && (*runs < 1 || *workers < 0 || *limit < 0) {
		err = fmt.Errorf("--runs %d, --workers %d, --time-limit %v: want runs >= 1, workers >= 0, time-limit >= 0", *runs, *workers, *limit)
	}
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos matrix:", err)
		return exitError
	}
	opts.Runs, opts.TimeLimit, opts.Workers, opts.Seed = *runs, *limit, *workers, *seed
	if !*quiet {
		opts.Progress = stderr
	}
	return runMatrix(opts, stdout, stderr)
}

func runMatrix(opts matrix.Options, stdout, stderr io.Writer) int {
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		fmt.Fprintln(stderr, "kafkachaos matrix:", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m, err := matrix.Run(ctx, opts)
	if err != nil && len(m.Cells) == 0 {
		fmt.Fprintln(stderr, "kafkachaos matrix:", err)
		return exitError
	}
	if werr := matrix.Write(opts.Out, m); werr != nil {
		fmt.Fprintln(stderr, "kafkachaos matrix:", werr)
		return exitError
	}
	ran, na, harness := m.Counts()
	findings, dead := m.Findings(), m.NotLive()
	fmt.Fprintf(stdout, "%s: %d cells run, %d n/a, %d harness error(s), %d finding(s), %d not live in %v\n",
		filepath.Join(opts.Out, matrix.MarkdownFile), ran, na, harness, len(findings), len(dead), m.Elapsed.Round(time.Second))
	for _, f := range findings {
		fmt.Fprintf(stdout, "  FINDING %s x %s\n", m.Rows[f.Row].Name, m.Columns[f.Col].Name)
	}
	for _, f := range dead {
		fmt.Fprintf(stdout, "  NOT LIVE %s x %s\n", m.Rows[f.Row].Name, m.Columns[f.Col].Name)
	}
	switch {
	case len(findings) > 0 || len(dead) > 0:
		return exitInvalid
	case err != nil || harness > 0:
		if err != nil {
			fmt.Fprintln(stderr, "kafkachaos matrix:", err)
		}
		return exitError
	}
	return exitValid
}

// matrixOptions selects the rows and columns named (all when empty) and
// the output directory.
func matrixOptions(cluster, rows, cols, out string) (matrix.Options, error) {
	o := matrix.Options{Cluster: cluster, Out: out, Replay: func(p string) string { return "kafkachaos run --scenario " + p }}
	if o.Out == "" {
		o.Out = filepath.Join(runner.RunsRoot(""), "matrix")
	}
	var err error
	if o.Rows, err = pick(matrix.Rows(cluster), rows, rowID, "--rows"); err != nil {
		return o, err
	}
	o.Columns, err = pick(matrix.Columns(cluster), cols, columnID, "--columns")
	return o, err
}

// pick is the items of all named in list (all of them when list is empty),
// in all's order; an unknown name is an error naming flag.
func pick[T any](all []T, list string, id func(T) string, flag string) ([]T, error) {
	if list == "" {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []T
	for _, it := range all {
		if want[id(it)] {
			out = append(out, it)
			delete(want, id(it))
		}
	}
	for n := range want {
		return nil, fmt.Errorf("%s: unknown id %q (want %s)", flag, n, idList(all, id))
	}
	return out, nil
}

// idList is the ids of all, comma-separated, for help and errors.
func idList[T any](all []T, id func(T) string) string {
	names := make([]string, len(all))
	for i, it := range all {
		names[i] = id(it)
	}
	return strings.Join(names, ", ")
}

func rowID(r matrix.Row) string       { return r.ID }
func columnID(c matrix.Column) string { return c.ID }
