package versions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
	"github.com/kafkachaos/kafkachaos/runner"
)

// Options say where and how long.
type Options struct {
	// Cluster is the provider's name (local, docker), as scenarios name it.
	Cluster string
	// Provider makes a provider running Kafka version.
	Provider func(version string) (cluster.Provider, error)
	// TimeLimit is each run's; 0 means 25 s.
	TimeLimit time.Duration
	// RunsDir is the runs root (runner.Options.RunsDir).
	RunsDir string
	// Progress, when set, gets a line per run.
	Progress io.Writer
}

// Row is one run of one scenario on one version.
type Row struct {
	Version, Scenario  string
	Expected, Observed string
	Held               bool
	Counts             map[checkers.Anomaly]int64
	// Liveness is the run's liveness headline: live, the longest send
	// outage, recovery after the last heal, stalls, the worst lag.
	Liveness    checkers.Headline
	FaultsFired int64
	// Dir is the run's directory, for the progress lines; the page leaves
	// it out (it is this machine's).
	Dir string
	// Err is a harness error: the row has no verdict.
	Err string
}

// Scenarios is the fixed set, on provider, each run limit long.
func Scenarios(provider string, limit time.Duration) []generators.Scenario {
	at := func(s generators.Scenario, kind, target string, f0, f1 float64) generators.Fault {
		frac := func(f float64) generators.Duration { return generators.Duration(float64(s.TimeLimit) * f) }
		return generators.Fault{Kind: kind, Start: frac(f0), Duration: frac(f1) - frac(f0), Params: generators.FaultParams{Target: target}}
	}
	// One group consumer reads what is sent, committing after processing
	// (with the copier, it only watches both topics by assign): every
	// expectation names a consumer hop, and the worst lag is its reads'.
	// The rate is shared with its polls, so the producer still sends 300 a
	// second.
	base := func(name string) generators.Scenario {
		s := generators.Baseline(name, provider, limit)
		s.Keys = generators.SequentialKeys(1, "in", "")
		s.Workload.Consumers, s.Workload.Rate = 1, 600
		s.Producer.DeliveryTimeout = generators.Duration(15 * time.Second)
		return s
	}
	safe := base("idempotent-kill-pause")
	safe.Nemesis = []generators.Fault{at(safe, generators.KindKill, "leader", 0.1, 0.35), at(safe, generators.KindPause, "one", 0.5, 0.7)}

	acks1 := base("acks1-isolate-leader")
	acks1.Producer.ProducerConfig = model.ProducerConfig{Acks: model.AcksLeader, Retries: 3, MaxInFlight: 5}
	acks1.Nemesis = []generators.Fault{at(acks1, generators.KindIsolateLeader, "", 0.05, 0.55)}

	txn := base("txn-copy-delayed-requests")
	txn = txn.TransactionalCopy(1, 0.2, 250)
	hold := at(txn, generators.KindDelayedRequests, "all", 0.2, 0.7)
	hold.Params.Requests, hold.Params.Delay = []string{"produce", "end-txn", "txn-offset-commit"}, generators.Duration(1500*time.Millisecond)
	txn.Nemesis = []generators.Fault{hold, at(txn, generators.KindPause, "one", 0.35, 0.5)}
	return []generators.Scenario{safe, acks1, txn}
}

// Run runs every scenario on every version, a version at a time on one
// cluster of its own, and returns a row per run.
func Run(ctx context.Context, versionList []string, o Options) ([]Row, error) {
	if o.Provider == nil || o.Cluster == "" {
		return nil, errors.New("versions: needs a cluster and a provider per version")
	}
	limit := o.TimeLimit
	if limit == 0 {
		limit = 25 * time.Second
	}
	var rows []Row
	for _, v := range versionList {
		reuse := &runner.Reuse{Root: o.RunsDir, Name: "version-clusters"}
		providers := runner.Providers{o.Cluster: func() (cluster.Provider, error) { return o.Provider(v) }}
		for _, s := range Scenarios(o.Cluster, limit) {
			if ctx.Err() != nil {
				return rows, errors.Join(ctx.Err(), reuse.Close(context.Background()))
			}
			out, err := runner.Run(ctx, s, runner.Options{RunsDir: o.RunsDir, TestName: "versions-" + v, Keep: true,
				Providers: providers, Reuse: reuse})
			r := rowOf(v, s.Name, out, err)
			rows = append(rows, r)
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "versions: %s %s: %s\n", v, s.Name, r.summary())
			}
		}
		if err := reuse.Close(context.Background()); err != nil {
			return rows, fmt.Errorf("versions: stopping the %s cluster: %w", v, err)
		}
	}
	return rows, nil
}

func rowOf(version, scenario string, out runner.Outcome, err error) Row {
	r := Row{Version: version, Scenario: scenario, Dir: out.Dir}
	if err != nil {
		r.Err = err.Error()
		return r
	}
	r.Expected, r.Observed, r.Held = out.Expected.EndToEnd.String(), out.Observed.EndToEnd.String(), out.Held
	r.Counts, r.FaultsFired, r.Liveness = out.Result.Counts, out.Stats.FaultsFired, out.Result.Liveness.Headline()
	return r
}

func (r Row) summary() string {
	if r.Err != "" {
		return "HARNESS ERROR " + r.Err
	}
	return fmt.Sprintf("expected %s, observed %s, held %v, live %v, anomalies %s, run dir %s",
		r.Expected, r.Observed, r.Held, !r.Liveness.NotLive, counts(r.Counts), r.Dir)
}

func counts(c map[checkers.Anomaly]int64) string {
	var parts []string
	for _, a := range slices.Sorted(maps.Keys(c)) {
		if c[a] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", a, c[a]))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// WriteMarkdown writes rows as VERSIONS.md: a table per scenario, a row per
// version, with what each column means.
func WriteMarkdown(w io.Writer, rows []Row, generated string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Kafka versions under the same faults\n\n%s\n\n", generated)
	b.WriteString("Each row is one run of the scenario on that Kafka release (KRaft, 3 brokers), written by `make versions`;\n" +
		"the command above makes every row again, and `--versions V` one release's rows (its runs are kept under\n" +
		"runs/versions-V/ of the machine that ran them, not in the repository).\n" +
		"held: the observed guarantee satisfies the one the model expects, hop by hop; live: every op kind made\n" +
		"progress again after the last heal (a poll only by delivering records, or by finding none while none waited);\n" +
		"send outage: the longest time without an acknowledged send; recovery: from the last heal to the first\n" +
		"acknowledged send; stalls: fault windows of >= 1 s in which an op kind made no progress; worst lag: the longest\n" +
		"time from a send's acknowledgement to the first workload read of its value (the harness's final reads do not\n" +
		"count; - when there was none).\n")
	var order []string
	for _, r := range rows {
		if !slices.Contains(order, r.Scenario) {
			order = append(order, r.Scenario)
		}
	}
	cols := append(append([]string{"version", "expected", "observed", "held", "live", "anomalies"}, checkers.HeadlineColumns()...),
		"faults fired")
	for _, sc := range order {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n|%s\n", sc, tableRow(cols), strings.Repeat("---|", len(cols)))
		for _, r := range rows {
			if r.Scenario != sc {
				continue
			}
			cells := []string{r.Version, "harness error: " + oneLine(r.Err)}
			if r.Err == "" {
				cells = append([]string{r.Version, r.Expected, r.Observed, yes(r.Held), yes(!r.Liveness.NotLive), counts(r.Counts)},
					r.Liveness.Cells()...)
				cells = append(cells, fmt.Sprint(r.FaultsFired))
			}
			for len(cells) < len(cols) {
				cells = append(cells, "")
			}
			b.WriteString(tableRow(cells) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tableRow is one Markdown table line of cells.
func tableRow(cells []string) string { return "| " + strings.Join(cells, " | ") + " |" }

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**NO**"
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}
