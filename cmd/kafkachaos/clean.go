package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/kafkachaos/kafkachaos/cluster/docker"
	"github.com/kafkachaos/kafkachaos/cluster/local"
	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// cleanCmd removes what crashed runs left behind: brokers, namespaces,
// bridges and rules of cluster/local runs, and containers, networks and
// FORWARD rules of cluster/docker runs, whose owner process is gone. Live
// runs are left alone. Every new run of either provider does the same
// before it starts. No Docker engine answering means no containers of ours
// exist to remove, which is not an error.
func cleanCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos clean")
		fmt.Fprintln(stderr, "removes what crashed runs of the local and docker providers left behind: brokers, worker")
		fmt.Fprintln(stderr, "processes, network namespaces, nft rules, containers; live runs are left alone")
		fmt.Fprintln(stderr, "exit status: 0 done, 2 something could not be removed")
	}
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	ctx := context.Background()
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
