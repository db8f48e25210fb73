package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/kafkachaos/kafkachaos/cluster/docker"
	"github.com/kafkachaos/kafkachaos/cluster/external"
	"github.com/kafkachaos/kafkachaos/cluster/local"
	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// cleanCmd removes what crashed runs left behind: brokers, namespaces,
// bridges and rules of cluster/local runs, and containers, networks and
// FORWARD rules of cluster/docker runs, whose owner process is gone. Live
// runs are left alone. Every new run of either provider does the same
// before it starts. No Docker engine answering means no containers of ours
// exist to remove, which is not an error. With --inventory it cleans the
// hosts of that external cluster instead, over SSH: the nft tables of run
// --run-id (of every run without it) and SIGSTOPped brokers.
func cleanCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos clean")
		fmt.Fprintln(stderr, "       kafkachaos clean --inventory FILE [--run-id ID]")
		fmt.Fprintln(stderr, "removes what crashed runs of the local and docker providers left behind: brokers, worker")
		fmt.Fprintln(stderr, "processes, network namespaces, nft rules, containers; live runs are left alone")
		fmt.Fprintln(stderr, "with --inventory: what runs on that external cluster left on its hosts: nft tables kafkachaos_ID")
		fmt.Fprintln(stderr, "(every run's without --run-id, live ones too) and SIGSTOPped brokers (resumed)")
		fmt.Fprintln(stderr, "exit status: 0 done, 2 something could not be removed")
		fs.PrintDefaults()
	}
	inventory := fs.String("inventory", "", inventoryUsage)
	runID := fs.String("run-id", "", "with --inventory: the run whose tables to remove (as its log names it); all runs' by default")
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	ctx := context.Background()
	if *inventory != "" {
		return cleanExternal(ctx, *inventory, *runID, stdout, stderr)
	}
	if *runID != "" {
		fmt.Fprintln(stderr, "kafkachaos clean: --run-id goes with --inventory")
		return exitError
	}
	removed, err := local.CleanLeftovers(ctx)
	inDocker, derr := docker.CleanLeftovers(ctx)
	if errors.Is(derr, docker.ErrNoEngine) {
		fmt.Fprintln(stdout, "docker: no engine answers, nothing to clean there")
		derr = nil
	}
	removed, err = append(removed, inDocker...), errors.Join(err, derr)
	if n := proc.Sweep(); n > 0 {
		removed = append(removed, fmt.Sprintf("%d worker processes of dead harnesses", n))
	}
	return cleaned(removed, err, stdout, stderr)
}

// cleaned reports what a clean removed and its error, and is its exit
// status.
func cleaned(removed []string, err error, stdout, stderr io.Writer) int {
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

// cleanExternal is `kafkachaos clean --inventory FILE`.
func cleanExternal(ctx context.Context, inventory, runID string, stdout, stderr io.Writer) int {
	inv, err := external.Load(inventory)
	if err != nil {
		fmt.Fprintln(stderr, "kafkachaos clean:", err)
		return exitError
	}
	removed, err := external.Clean(ctx, inv, runID)
	return cleaned(removed, err, stdout, stderr)
}
