package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/kafkachaos/kafkachaos/report"
)

func viewCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	serve := fs.String("serve", "", "serve DIR (a runs folder) on this address, e.g. 127.0.0.1:8080, with an index of all runs")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkachaos view RUN_DIR        (writes RUN_DIR/index.html)")
		fmt.Fprintln(stderr, "       kafkachaos view --serve ADDR RUNS_DIR")
		fs.PrintDefaults()
	}
	dir, exit, ok := parseOneArg(fs, args)
	if !ok {
		return exit
	}
	if *serve != "" {
		fmt.Fprintf(stdout, "serving %s on http://%s/\n", dir, *serve)
		if err := report.Serve(dir, *serve, report.Options{}); err != nil {
			fmt.Fprintln(stderr, "kafkachaos view:", err)
			return exitError
		}
		return exitValid
	}
	if err := report.Write(dir, report.Options{}); err != nil {
		fmt.Fprintln(stderr, "kafkachaos view:", err)
		return exitError
	}
	fmt.Fprintf(stdout, "wrote %s/%s\n", dir, report.IndexFile)
	return exitValid
}
