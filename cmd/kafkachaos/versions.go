package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/docker"
	"github.com/kafkachaos/kafkachaos/cluster/local"
	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
	"github.com/kafkachaos/kafkachaos/runner"
	"github.com/kafkachaos/kafkachaos/versions"
)

// versionProvider makes the real provider called name running a given
// Kafka release; ok is false for any other name.
func versionProvider(name string) (mk func(string) (cluster.Provider, error), ok bool) {
	switch name {
	case "local":
		return func(v string) (cluster.Provider, error) { return local.New(local.Options{KafkaVersion: v}), nil }, true
	case "docker":
		return func(v string) (cluster.Provider, error) { return docker.New(docker.Options{KafkaVersion: v}), nil }, true
	}
	return nil, false
}

// versionsCmd is `kafkachaos versions`: the fixed scenarios of package
// versions on each release, VERSIONS.md written from the runs. Exit 0 when
// every run held and stayed live, 1 when one did not, 2 on bad flags or
// harness errors.
func versionsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("versions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	clusterName := fs.String("cluster", "local", "local or docker")
	list := fs.String("versions", kafkadist.DefaultVersion, "comma list of Kafka releases (one newest patch per line)")
	out := fs.String("out", "VERSIONS.md", "the table's file")
	limit := fs.Duration("time-limit", 25*time.Second, "each run's time limit")
	runs := fs.String("runs", "", "runs root (default $KAFKACHAOS_RUNS, else runs/ in the module root)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos versions [--cluster local|docker] [--versions V1,V2,...] [--out VERSIONS.md]")
		fmt.Fprintln(stderr, "runs a fixed set of scenarios on each Kafka release, one cluster per release, and writes the table")
		fmt.Fprintln(stderr, "exit status: 0 every run held and stayed live, 1 one did not, 2 bad flags or a harness error")
		fs.PrintDefaults()
	}
	if exit, ok := parseFlags(fs, args); !ok {
		return exit
	}
	mk, ok := versionProvider(*clusterName)
	if !ok || fs.NArg() > 0 || *limit <= 0 {
		fmt.Fprintf(stderr, "kafkachaos versions: --cluster %q (want local or docker), --time-limit %v, arguments %v\n", *clusterName, *limit, fs.Args())
		return exitError
	}
	vs := strings.Split(*list, ",")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	began := time.Now()
	rows, err := versions.Run(ctx, vs, versions.Options{Cluster: *clusterName, Provider: mk, TimeLimit: *limit,
		RunsDir: runner.RunsRoot(*runs), Progress: stderr})
	f, ferr := os.Create(*out)
	if ferr == nil {
		gen := fmt.Sprintf("Generated %s by `kafkachaos versions --cluster %s --versions %s` in %s.",
			time.Now().UTC().Format("2006-01-02 15:04 UTC"), *clusterName, *list, time.Since(began).Round(time.Second))
		ferr = versions.WriteMarkdown(f, rows, gen)
		f.Close()
	}
	if err != nil || ferr != nil {
		fmt.Fprintln(stderr, "kafkachaos versions:", err, ferr)
		return exitError
	}
	fmt.Fprintf(stdout, "%d runs on %d versions: %s\n", len(rows), len(vs), *out)
	for _, r := range rows {
		if r.Err != "" {
			return exitError
		}
	}
	for _, r := range rows {
		if !r.Held || r.Liveness.NotLive {
			return exitInvalid
		}
	}
	return exitValid
}
