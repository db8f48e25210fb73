package explore

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkachaos/kafkachaos/generators"
)

// Coverage counts the draws per configuration x fault kind cell, so that a
// campaign that found nothing says what it looked at.
type Coverage struct {
	kinds []string
	cells map[string]map[string]int // configuration -> kind -> draws
}

// NewCoverage is an empty table with a column per kind, in that order.
func NewCoverage(kinds []string) *Coverage {
	return &Coverage{kinds: slices.Clone(kinds), cells: map[string]map[string]int{}}
}

// ConfigOf is s's configuration as the seed table names its dimensions:
// acks, retries and idempotence, min ISR, commit strategy (auto-commit is
// one), transactions.
func ConfigOf(s generators.Scenario) string {
	p := s.Producer.ProducerConfig
	prod := "idem"
	if !p.Idempotent() {
		prod = "retries=" + retriesText(p.Retries)
	}
	txn := ""
	if p.Transactional() {
		txn = " txn"
	}
	return fmt.Sprintf("acks=%s %s isr=%d commit=%s%s", p.Acks, prod, s.Topic.MinInsyncReplicas, s.Consumer.CommitStrategy, txn)
}

func retriesText(n int) string {
	if n >= 1<<30 {
		return "max"
	}
	return strconv.Itoa(n)
}

// Add counts s under its configuration and each kind it schedules (once a
// kind per draw).
func (c *Coverage) Add(s generators.Scenario) { c.count(ConfigOf(s), KindsOf(s)) }

// count counts a draw of config that schedules kinds (each once).
func (c *Coverage) count(config string, kinds []string) {
	if c.cells[config] == nil {
		c.cells[config] = map[string]int{}
	}
	for _, k := range kinds {
		c.cells[config][k]++
		if !slices.Contains(c.kinds, k) {
			c.kinds = append(c.kinds, k)
		}
	}
}

// KindsOf is the fault kinds s schedules, each once, in schedule order.
func KindsOf(s generators.Scenario) []string {
	var kinds []string
	for _, f := range s.Nemesis {
		if !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	return kinds
}

// Visited is how many cells have a draw, of rows x columns seen.
func (c *Coverage) Visited() (visited, rows, cols int) {
	for _, r := range c.cells {
		visited += len(r)
	}
	return visited, len(c.cells), len(c.kinds)
}

// Count is the draws of one cell.
func (c *Coverage) Count(config, kind string) int { return c.cells[config][kind] }

// Write prints the table: a row per configuration drawn, a column per kind
// (abbreviated to fit, with a legend), "." for a cell never visited.
func (c *Coverage) Write(w io.Writer) {
	rows := make([]string, 0, len(c.cells))
	width := len("configuration")
	for r := range c.cells {
		rows = append(rows, r)
		width = max(width, len(r))
	}
	slices.Sort(rows)
	fmt.Fprintf(w, "%-*s", width, "configuration")
	for i := range c.kinds {
		fmt.Fprintf(w, " %3s", "k"+strconv.Itoa(i+1))
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s", width, r)
		for _, k := range c.kinds {
			cell := "."
			if n := c.cells[r][k]; n > 0 {
				cell = strconv.Itoa(n)
			}
			fmt.Fprintf(w, " %3s", cell)
		}
		fmt.Fprintln(w)
	}
	legend := make([]string, len(c.kinds))
	for i, k := range c.kinds {
		legend[i] = fmt.Sprintf("k%d=%s", i+1, k)
	}
	v, nr, nc := c.Visited()
	fmt.Fprintf(w, "%s\nvisited %d of %d cells (%d configurations x %d kinds)\n", strings.Join(legend, " "), v, nr*nc, nr, nc)
}
