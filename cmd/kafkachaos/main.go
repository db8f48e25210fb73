// Command kafkachaos runs chaos experiments against Kafka and checks their
// histories. See README.md; `kafkachaos help` lists the subcommands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// Exit codes shared by every subcommand.
const (
	exitValid   = 0 // the history showed no anomaly / the run held its guarantee
	exitInvalid = 1 // anomalies found
	exitError   = 2 // bad input or a failure of the harness itself
)

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "run a chaos scenario and check it", runCmd},
		{"check", "check a history file or run directory", checkCmd},
		{"view", "write or serve HTML reports of run directories", viewCmd},
		{"summary", "one line per run directory: text, markdown (CI) or json", summaryCmd},
		{"requests", "the Kafka requests of a run's clients, from their proxies, filtered by txn, pid or API", requestsCmd},
		{"matrix", "run every configuration under every fault kind; write MATRIX.md and matrix.html", matrixCmd},
		{"clients", "the same scenarios through each client; write CLIENTS.md and clients.html", clientsCmd},
		{"explore", "draw scenarios until one violates its claim; shrink it, save it as a regression", exploreCmd},
		{"merge", "merge the outputs of an explore campaign's shards (explore --shard) into one", mergeCmd},
		{"versions", "run a fixed set of scenarios on each Kafka release; write VERSIONS.md", versionsCmd},
		{"k8s", "render a scenario as Kubernetes objects: the harness's Job and a Chaos Mesh Workflow of its faults", k8sCmd},
		{"import", "convert a Jepsen EDN history to JSONL", importCmd},
		{"clean", "remove what crashed runs left behind (brokers, namespaces, rules)", cleanCmd},
		{"export", "convert a JSONL history to Jepsen EDN", exportCmd},
	}
}

func main() {
	proc.ServeIfChild() // a worker process of a client-processes run
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return exitError
		}
		return exitValid
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "kafkachaos: unknown command %q\n", args[0])
	usage(stderr)
	return exitError
}

// parseFlags parses a subcommand's flags. When it reports false the
// subcommand returns exit: exitValid after -h or --help (the flag package
// printed the usage, as asked), exitError after a mistake it printed.
func parseFlags(fs *flag.FlagSet, args []string) (exit int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitValid, true
	case errors.Is(err, flag.ErrHelp):
		return exitValid, false
	}
	return exitError, false
}

// parseOneArg parses a subcommand's flags and its one argument (a path).
// When it reports false the subcommand returns exit (parseFlags; a missing
// or extra argument prints the usage and is exitError).
func parseOneArg(fs *flag.FlagSet, args []string) (path string, exit int, ok bool) {
	if exit, ok := parseFlags(fs, args); !ok {
		return "", exit, false
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return "", exitError, false
	}
	return fs.Arg(0), exitValid, true
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: kafkachaos <command> [flags] [args]")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "Run 'kafkachaos <command> -h' for a command's flags.")
}
