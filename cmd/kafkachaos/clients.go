package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/matrix"
)

// clientsCmd is `kafkachaos clients`: the matrix with its client dimension
// on, every built client by default, over a few rows and columns that
// separate the guarantees (an idempotent producer, acks=1, acks=0 under a
// leader kill and a partition), small enough for real brokers in minutes.
func clientsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clients", flag.ContinueOnError)
	def := matrixDefaults{out: "clients", rows: "retries-idempotence,acks-1,acks-0",
		columns: generators.KindKill + "," + generators.KindPartition, clients: clientList(matrix.DefaultClients()),
		clientsHelp: "clients under test, a comma list of NAME[@VERSION] (" + strings.Join(generators.ClientNames(), ", ") + ")"}
	f := addMatrixFlags(fs, def)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos clients [--cluster C] [--clients LIST] [--rows IDS] [--columns IDS] [--out DIR] [--time-limit D]")
		fmt.Fprintln(stderr, "the same scenarios through each client, judged by the same model; writes CLIENTS.md and clients.html")
		fmt.Fprintln(stderr, "exit status: 0 no finding, 1 a client weaker than predicted or than another client, 2 bad flags or a harness error")
		fs.PrintDefaults()
	}
	return f.run(fs, args, stdout, stderr)
}

func clientList(cs []matrix.Client) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.String()
	}
	return strings.Join(names, ",")
}

// runClients runs the differential and writes its pages; the exit status
// is runMatrix's, a client weaker than another counting as a finding.
func runClients(opts matrix.Options, clients []matrix.Client, stdout, stderr io.Writer) int {
	ctx, stop, err := start(opts.Out)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos clients:", err)
		return exitError
	}
	defer stop()
	d, err := matrix.RunClients(ctx, opts, clients)
	if err != nil && len(d.Matrices) == 0 {
		fmt.Fprintln(stderr, "kafkachaos clients:", err)
		return exitError
	}
	if werr := matrix.WriteClients(opts.Out, d); werr != nil {
		fmt.Fprintln(stderr, "kafkachaos clients:", werr)
		return exitError
	}
	ran, na, harness := d.Counts()
	findings, diffs, dead := d.Findings(), d.Differences(), d.NotLive()
	fmt.Fprintf(stdout, "%s: %d cells run, %d n/a, %d harness error(s), %d finding(s), %d difference(s), %d not live in %v\n",
		filepath.Join(opts.Out, matrix.ClientsMarkdownFile), ran, na, harness, len(findings), len(diffs), len(dead), d.Elapsed.Round(time.Second))
	at := func(f matrix.FindingAt) string {
		m := d.Matrices[0]
		return m.Rows[f.Row].Name + " x " + m.Columns[f.Col].Name
	}
	for _, f := range findings {
		fmt.Fprintf(stdout, "  FINDING %s, %s\n", at(f.FindingAt), d.Clients[f.Client])
	}
	for _, f := range diffs {
		fmt.Fprintf(stdout, "  DIFFERENCE %s: %s\n", at(matrix.FindingAt{Row: f.Row, Col: f.Col}), f.Text(d.Clients))
	}
	for _, f := range dead {
		fmt.Fprintf(stdout, "  NOT LIVE %s, %s\n", at(f.FindingAt), d.Clients[f.Client])
	}
	return exitOf(len(findings)+len(diffs)+len(dead) > 0, harness > 0, err, stderr)
}
