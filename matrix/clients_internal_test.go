package matrix

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// Every client × row × column is a cell: a client runs a row when it runs
// the workers of the row's hop (generators' built roles), its cells then
// carry the client under test in their scenario and run directory name;
// otherwise each of the row's cells is n/a and says why.
func TestClientLayoutExpandsClientsRowsColumns(t *testing.T) {
	var rows []Row
	for _, r := range Rows("embedded") {
		if slices.Contains([]string{"acks-1", "commit-before", "transactions"}, r.ID) {
			rows = append(rows, r)
		}
	}
	var cols []Column
	for _, c := range Columns("embedded") {
		if c.ID == generators.KindKill || c.ID == generators.KindLostAck {
			cols = append(cols, c)
		}
	}
	clients := []Client{{Name: generators.ClientLibrdkafka}, {Name: generators.ClientJava}, {Name: generators.ClientJava, Version: "3.8.0"},
		{Name: generators.ClientFranzGo}}
	runnable, na := 0, 0
	for _, c := range clients {
		o := Options{Cluster: "embedded", TimeLimit: 2 * time.Second, Rows: rows, Columns: cols, Client: c}.withDefaults()
		m := layout(o, func(generators.Scenario) error { return nil })
		if len(m.Cells) != len(rows) || len(m.Cells[0]) != len(cols) || m.Client != c {
			t.Fatalf("%s: %dx%d cells for client %v, want %dx%d", c, len(m.Cells), len(m.Cells[0]), m.Client, len(rows), len(cols))
		}
		for i, r := range m.Rows {
			for j, cell := range m.Cells[i] {
				s := m.scenarios[i][j]
				switch {
				case cell.NA != "":
					na++
					t.Errorf("%s x %s x %s: n/a %q, but the client runs the %s hop", c, r.ID, cols[j].ID, cell.NA, r.Hop)
				default:
					runnable++
					if s.Client != c.Name || !strings.HasSuffix(s.Name, "-"+c.slug()) || s.Validate() != nil {
						t.Errorf("%s x %s: scenario %s names client %q@%q (%v)", c, r.ID, s.Name, s.Client, s.ClientVersion, s.Validate())
					}
					if c.Version != "" && s.ClientVersion != c.Version {
						t.Errorf("%s x %s: client version %q", c, r.ID, s.ClientVersion)
					}
				}
			}
		}
	}
	// Every client runs every role: no cell of these rows is n/a.
	if runnable != len(clients)*len(rows)*len(cols) || na != 0 {
		t.Errorf("%d runnable and %d n/a cells: want all %d runnable, every client running every role",
			runnable, na, len(clients)*len(rows)*len(cols))
	}
}

// cellOfRun is a cell of one judged run.
func cellOfRun(producer model.Guarantee, counts map[string]int64, notLive bool, hangs int) Cell {
	return Cell{Runs: []RunResult{{Judged: true, Held: true, Observed: model.Observation{Producer: producer, EndToEnd: producer},
		Counts: counts, Liveness: checkers.Headline{NotLive: notLive}, Hangs: hangs, FaultsFired: 1}}}
}

// A client is weaker than another by a weaker guarantee, an anomaly the
// other did not show, not being live or hanging where the other did not;
// equal cells, or counts of an anomaly both showed, are no difference,
// and a cell not judged, or whose fault never fired, is compared with
// nothing.
func TestWeakerBy(t *testing.T) {
	exact := cellOfRun(model.ExactlyOnce, nil, false, 0)
	for _, tc := range []struct {
		name string
		a, b Cell
		want []string
	}{
		{"equal", exact, exact, nil},
		{"lost writes", cellOfRun(model.AtMostOnce, map[string]int64{"lost-write": 3}, false, 0), exact,
			[]string{"producer observed at-most-once against exactly-once", "lost-write 3"}},
		{"stronger", exact, cellOfRun(model.AtMostOnce, map[string]int64{"lost-write": 3}, false, 0), nil},
		{"same anomaly, other count", cellOfRun(model.AtLeastOnce, map[string]int64{"duplicate": 9}, false, 0),
			cellOfRun(model.AtLeastOnce, map[string]int64{"duplicate": 1}, false, 0), nil},
		{"an anomaly the other lacks, same guarantee", cellOfRun(model.AtLeastOnce, map[string]int64{"duplicate": 2, "reorder": 1}, false, 0),
			cellOfRun(model.AtLeastOnce, map[string]int64{"duplicate": 5}, false, 0), []string{"reorder 1"}},
		{"not live", cellOfRun(model.ExactlyOnce, nil, true, 0), exact, []string{"NOT LIVE"}},
		{"not live, polls stopped", func() Cell {
			c := cellOfRun(model.ExactlyOnce, nil, true, 0)
			c.Runs[0].NeverBack = []string{"poll"}
			return c
		}(), exact, []string{"NOT LIVE (poll never came back after the heal)"}},
		{"hangs", cellOfRun(model.ExactlyOnce, nil, false, 2), exact, []string{"2 client hang(s)"}},
		{"both hang", cellOfRun(model.ExactlyOnce, nil, false, 2), cellOfRun(model.ExactlyOnce, nil, false, 1), nil},
		{"not judged", cellOfRun(model.None, nil, false, 0), Cell{NA: "the franz-go client's consumer workers cannot play this scenario (generators.UseClient leaves them to librdkafka)"}, nil},
		{"the other met no fault", cellOfRun(model.AtLeastOnce, map[string]int64{"duplicate-delivery": 30}, false, 0), func() Cell {
			c := exact
			c.Runs = []RunResult{c.Runs[0]}
			c.Runs[0].FaultsFired = 0
			return c
		}(), nil},
	} {
		if got := weakerBy(HopProducer, tc.a, tc.b); !slices.Equal(got, tc.want) {
			t.Errorf("%s: weaker by %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A consumer crash lands where the client under test's consumers pass:
// at the commit point for librdkafka's auto-commit, anywhere for
// franz-go's (kgo commits a poll's records only once the next begins), so
// that neither cell is n/a.
func TestConsumerCrashPointFollowsTheClient(t *testing.T) {
	var row Row
	for _, r := range Rows("embedded") {
		if r.ID == "auto-commit" {
			row = r
		}
	}
	var col Column
	for _, c := range Columns("embedded") {
		if c.ID == generators.KindCrashConsumer {
			col = c
		}
	}
	for client, point := range map[string]string{generators.ClientLibrdkafka: generators.CrashAfterCommit, generators.ClientFranzGo: generators.CrashAnywhere} {
		o := Options{Cluster: "embedded", TimeLimit: 5 * time.Second, Rows: []Row{row}, Columns: []Column{col}, Client: Client{Name: client}}.withDefaults()
		m := layout(o, func(generators.Scenario) error { return nil })
		if na := m.Cells[0][0].NA; na != "" {
			t.Errorf("%s: auto-commit x consumer crash n/a: %s", client, na)
			continue
		}
		if got := m.scenarios[0][0].Nemesis[0].Params.Point; got != point {
			t.Errorf("%s: consumer crash at %q, want %q", client, got, point)
		}
	}
}
