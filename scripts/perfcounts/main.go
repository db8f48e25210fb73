// Command perfcounts reads the JSON of `kafkachaos check --json` on stdin
// and prints its anomaly counts on one line, for scripts/perf.sh.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

func main() {
	var out struct {
		Counts map[string]int64 `json:"counts"`
		Stats  struct {
			Ops int64 `json:"ops"`
		} `json:"stats"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&out); err != nil {
		fmt.Fprintln(os.Stderr, "perfcounts:", err)
		os.Exit(1)
	}
	names := make([]string, 0, len(out.Counts))
	for a := range out.Counts {
		names = append(names, a)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, a := range names {
		parts[i] = fmt.Sprintf("%s %d", a, out.Counts[a])
	}
	fmt.Printf("counts over %d ops: %s\n", out.Stats.Ops, strings.Join(parts, ", "))
}
