// Command gen writes a synthetic history (package histgen) as JSONL and
// prints what it planted as JSON on stderr:
//
//	go run ./internal/histgen/gen -ops 1000000 -o history.jsonl
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/kafkachaos/kafkachaos/internal/histgen"
)

func main() {
	var cfg histgen.Config
	flag.IntVar(&cfg.Ops, "ops", 1_000_000, "ops to generate (the drain and final reads come on top)")
	flag.IntVar(&cfg.Keys, "keys", 8, "keys (partitions)")
	flag.IntVar(&cfg.Processes, "processes", 16, "client processes at any time")
	flag.IntVar(&cfg.LostWrites, "lost", 40, "lost writes to plant")
	flag.IntVar(&cfg.Duplicates, "dup", 50, "duplicates to plant")
	flag.Int64Var(&cfg.Seed, "seed", 1, "random seed")
	flag.IntVar(&cfg.TroubleOneIn, "trouble", 100, "one op in this many may fail or time out (0: any)")
	flag.IntVar(&cfg.CrashOneIn, "crash", 10_000, "an idle process crashes one time in this many (0: never)")
	out := flag.String("o", "", "output file (default stdout)")
	flag.Parse()
	if err := run(cfg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(cfg histgen.Config, path string) error {
	w := os.Stdout
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w = f
	}
	planted, err := histgen.Write(w, cfg) // closes w
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stderr).Encode(planted)
}
