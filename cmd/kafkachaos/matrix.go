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

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/matrix"
	"github.com/kafkachaos/kafkachaos/runner"
)

// matrixCmd is `kafkachaos matrix`: every configuration of the semantics table
// under every fault kind the cluster injects, written to MATRIX.md and
// matrix.html; with --clients, the same cells through each client, written
// to CLIENTS.md and clients.html. Exit 0 when no cell is a finding, 1 when
// one is, 2 on bad flags or when a cell's run ended in a harness error.
func matrixCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	f := addMatrixFlags(fs, matrixDefaults{out: "matrix",
		clientsHelp: "clients under test, a comma list of NAME[@VERSION] (" + strings.Join(generators.ClientNames(), ", ") +
			"): each cell runs once per client and CLIENTS.md compares them (default: none, the matrix alone)"})
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos matrix [--cluster C] [--runs N] [--out DIR] [--time-limit D] [--clients LIST]")
		fmt.Fprintln(stderr, "exit status: 0 no finding, 1 a cell observed weaker than predicted (or a client weaker than another), 2 bad flags or a harness error")
		fs.PrintDefaults()
	}
	return f.run(fs, args, stdout, stderr)
}

// matrixDefaults are what a matrix command runs when its flags say
// nothing: its directory under the runs root, and its rows, columns and
// clients ("" for all rows and columns, no client dimension); clientsHelp
// is --clients' help.
type matrixDefaults struct{ out, rows, columns, clients, clientsHelp string }

// matrixFlags are the flags the matrix and clients commands share.
type matrixFlags struct {
	defaults            matrixDefaults
	cluster, out        *string
	rows, cols, clients *string
	runs, workers       *int
	limit               *time.Duration
	seed                *int64
	quiet               *bool
}

// addMatrixFlags defines the flags the matrix and clients commands share.
func addMatrixFlags(fs *flag.FlagSet, d matrixDefaults) *matrixFlags {
	f := &matrixFlags{defaults: d}
	f.cluster = fs.String("cluster", "embedded", "cluster provider every run uses")
	f.runs = fs.Int("runs", 1, "runs per cell")
	f.out = fs.String("out", "", "directory of the pages and the cells' runs/ (default $KAFKACHAOS_RUNS/"+d.out+", else runs/"+d.out+" in the module root)")
	f.limit = fs.Duration("time-limit", 0, "each run's time limit (default 3s on embedded, 20s on real brokers)")
	f.workers = fs.Int("workers", 0, "runs at once (default 2 on embedded, where each run has its own cluster; 1 on real brokers)")
	f.seed = fs.Int64("seed", 1, "seed of each cell's first run (run i has seed+i)")
	f.rows = fs.String("rows", d.rows, "comma list of row ids to run (default all): "+idList(matrix.Rows("embedded"), rowID))
	f.cols = fs.String("columns", d.columns, "comma list of column ids to run (default all): "+idList(matrix.Columns("embedded"), columnID))
	f.clients = fs.String("clients", d.clients, d.clientsHelp)
	f.quiet = fs.Bool("quiet", false, "no progress on stderr")
	return f
}

func (f *matrixFlags) run(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	fs.SetOutput(stderr)
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	out := *f.out
	if out == "" {
		out = filepath.Join(runner.RunsRoot(""), f.defaults.out)
	}
	opts, err := matrixOptions(*f.cluster, *f.rows, *f.cols, out)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err == nil && (*f.runs < 1 || *f.workers < 0 || *f.limit < 0) {
		err = fmt.Errorf("--runs %d, --workers %d, --time-limit %v: want runs >= 1, workers >= 0, time-limit >= 0", *f.runs, *f.workers, *f.limit)
	}
	var clients []matrix.Client
	if err == nil && *f.clients != "" {
		clients, err = matrix.ParseClients(*f.clients)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kafkachaos %s: %v\n", fs.Name(), err)
		return exitError
	}
	opts.Runs, opts.TimeLimit, opts.Workers, opts.Seed = *f.runs, *f.limit, *f.workers, *f.seed
	if !*f.quiet {
		opts.Progress = stderr
	}
	if clients != nil {
		return runClients(opts, clients, stdout, stderr)
	}
	return runMatrix(opts, stdout, stderr)
}

func runMatrix(opts matrix.Options, stdout, stderr io.Writer) int {
	ctx, stop, err := start(opts.Out)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos matrix:", err)
		return exitError
	}
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
	return exitOf(len(findings)+len(dead) > 0, harness > 0, err, stderr)
}

// start makes the directory out and a context that an interrupt or
// SIGTERM cancels, so that the pages are written for the runs made so far.
func start(out string) (context.Context, context.CancelFunc, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return ctx, stop, nil
}

// exitOf is a matrix command's exit status: 1 with a finding, else 2 with
// a harness error or an interrupted run (err, printed), else 0.
func exitOf(finding, harness bool, err error, stderr io.Writer) int {
	switch {
	case finding:
		return exitInvalid
	case err != nil || harness:
		if err != nil {
			fmt.Fprintln(stderr, "kafkachaos:", err)
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
