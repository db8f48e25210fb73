package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/kafkachaos/kafkachaos/cluster/local"
)

// cleanCmd removes what crashed runs left behind: brokers, namespaces,
// bridges and rules of runs whose owner process is gone. Live runs are left
// alone. Every new run does the same before it starts.
func cleanCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	removed, err := local.CleanLeftovers(context.Background())
	for _, r := range removed {
		fmt.Fprintln(stdout, "removed", r)
	}
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos clean:", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%d leftovers removed\n", len(removed))
	return exitValid
}
