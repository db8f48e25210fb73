package kafkachaos_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// soakRunsEnv is how many runs of the safe configuration TestSoak makes
// (make soak sets it); unset, the soak does not run: it takes minutes to
// an hour and belongs to its own target, not to make test.
const soakRunsEnv = "KAFKACHAOS_SOAK"

// soakCase is one configuration of the soak and what it must show.
type soakCase struct {
	name     string
	scenario func() generators.Scenario
	runs     int
	// safe cases must hold with no anomaly in any run; weak cases must
	// find want in at least one run (and still hold their own, weaker,
	// expected guarantee).
	safe bool
	want checkers.Anomaly
}

// TestSoak repeats a safe configuration (acks=all, idempotent, min ISR 2,
// read_committed, commit after processing) under the selected cluster's
// broker faults and requires in every run no harness error, the expected
// guarantee, and no anomaly but the redeliveries commit-after-processing
// allows (see onlyRedelivered);
// beside it, weak configurations under the same faults must still show
// their anomalies. It prints the table. KAFKACHAOS_SOAK=50 is the embedded
// soak; KAFKACHAOS_CLUSTER=local with KAFKACHAOS_SOAK=10 the real one.
func TestSoak(t *testing.T) {
	n := int(envInt(soakRunsEnv, 0))
	if n <= 0 {
		t.Skipf("the soak runs only with %s=<runs> (make soak)", soakRunsEnv)
	}
	if *flagCluster != "embedded" {
		requireReal(t, *flagCluster)
	}
	cases := soakCases(*flagCluster, n)
	rows := make([]soakRow, 0, len(cases))
	for _, c := range cases {
		rows = append(rows, soak(t, c))
	}
	printSoak(t, rows)
}

func soakCases(provider string, n int) []soakCase {
	weak := max(2, n/10)
	limit := 6 * time.Second
	if provider != "embedded" {
		limit = 20 * time.Second
	}
	cases := []soakCase{
		{name: "safe", scenario: func() generators.Scenario { return safeSoak(provider, limit) }, runs: n, safe: true},
		{name: "retries, no idempotence", runs: weak, want: checkers.Duplicate, scenario: func() generators.Scenario {
			s := safeSoak(provider, limit)
			s.Producer.EnableIdempotence, s.Producer.MaxInFlight = false, 1
			return s
		}},
		{name: "commit before processing", runs: weak, want: checkers.LostDelivery, scenario: func() generators.Scenario {
			s := safeSoak(provider, limit)
			s.Consumer.CommitStrategy = model.CommitBeforeProcessing
			start, dur := window(s)
			s.Nemesis = append(s.Nemesis, generators.Fault{Kind: generators.KindCrashConsumer, Start: start, Duration: dur,
				Params: generators.FaultParams{Point: generators.CrashAfterCommit, Every: d(500 * time.Millisecond)}})
			return s
		}},
	}
	return cases
}

// safeSoak is base() with two group consumers, committing after
// processing, under the provider's broker faults: a kill, a pause and, on
// the embedded cluster, lost acknowledgements; on real brokers a network
// partition.
func safeSoak(provider string, limit time.Duration) generators.Scenario {
	s := base("soak", limit)
	s.Cluster.Provider = provider
	s.Workload.Consumers, s.Workload.Mode, s.Workload.Rate = 2, generators.ModeGroup, 300
	at := func(f float64) generators.Duration { return generators.Duration(float64(s.TimeLimit) * f) }
	fault := func(kind string, from, to float64) generators.Fault {
		return generators.Fault{Kind: kind, Start: at(from), Duration: at(to) - at(from)}
	}
	s.Nemesis = []generators.Fault{fault(generators.KindKill, 0.1, 0.3), fault(generators.KindPause, 0.4, 0.55)}
	if provider == "embedded" {
		lost := fault(generators.KindLostAck, 0.6, 0.85)
		lost.Params.Probability = 0.3
		s.Nemesis = append(s.Nemesis, lost)
	} else {
		s.Nemesis = append(s.Nemesis, fault(generators.KindPartition, 0.6, 0.85))
	}
	return s
}

// soakRow is one line of the soak's table.
type soakRow struct {
	c                          soakCase
	held, found, harness, runs int
	anomalies                  map[checkers.Anomaly]int64
	fired, ops                 int64
	observed                   map[model.Guarantee]int
}

// soak runs c's runs and checks each as c says.
func soak(t *testing.T, c soakCase) soakRow {
	row := soakRow{c: c, anomalies: map[checkers.Anomaly]int64{}, observed: map[model.Guarantee]int{}}
	for i := range c.runs {
		s := c.scenario()
		s.Name = "soak-" + strings.ReplaceAll(c.name, " ", "-")
		s.Seed = *flagSeed + int64(i)
		out, err := runner.Run(context.Background(), s, runner.Options{RunsDir: *flagRuns, TestName: t.Name(), Replay: replay})
		row.runs++
		if err != nil {
			row.harness++
			t.Errorf("%s run %d: harness error: %v (run dir %s)", c.name, i, err, out.Dir)
			continue
		}
		row.fired += out.Stats.FaultsFired
		row.ops += out.Stats.Ops
		row.observed[out.Observed.EndToEnd]++
		for a, n := range out.Result.Counts {
			row.anomalies[a] += n
		}
		if out.Held {
			row.held++
		} else {
			t.Errorf("%s run %d: observed %s, expected %s (anomalies %v, run dir %s)", c.name, i,
				out.Observed.EndToEnd, out.Expected.EndToEnd, out.Result.Counts, out.Dir)
		}
		if out.Stats.FaultsFired == 0 {
			t.Errorf("%s run %d: no fault fired (%s)", c.name, i, faultSummary(out))
		}
		if c.safe && !onlyRedelivered(out.Result.Counts) {
			t.Errorf("%s run %d: anomalies %v (run dir %s)", c.name, i, out.Result.Counts, out.Dir)
		}
		if !c.safe && out.Result.Counts[c.want] > 0 {
			row.found++
		}
	}
	if !c.safe && row.found == 0 {
		t.Errorf("%s: no %s in %d runs", c.name, c.want, c.runs)
	}
	return row
}

// onlyRedelivered reports whether counts has no anomaly but
// duplicate-delivery: a group committing after processing redelivers what
// it processed but could not commit (a commit lost to a broker fault), the
// at-least-once its configuration promises; anything else in a safe run is
// a finding.
func onlyRedelivered(counts map[checkers.Anomaly]int64) bool {
	for a, n := range counts {
		if a != checkers.DuplicateDelivery && n > 0 {
			return false
		}
	}
	return true
}

func printSoak(t *testing.T, rows []soakRow) {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "configuration\truns\tharness errors\theld\tfaults fired\tops\tobserved\tanomalies\twanted found in\n")
	for _, r := range rows {
		want := "-"
		if !r.c.safe {
			want = fmt.Sprintf("%d/%d (%s)", r.found, r.runs, r.c.want)
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%v\t%v\t%s\n", r.c.name, r.runs, r.harness, r.held, r.fired, r.ops,
			r.observed, r.anomalies, want)
	}
	w.Flush()
	t.Logf("SOAK on %s:\n%s", *flagCluster, b.String())
	fmt.Fprintf(os.Stdout, "SOAK on %s:\n%s", *flagCluster, b.String())
}
