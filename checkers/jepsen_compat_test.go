package checkers_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
)

// The fixtures in testdata/jepsen are the histories of the anomaly tests in
// Jepsen's jepsen/test/jepsen/tests/kafka_test.clj, rewritten as Jepsen EDN
// histories with integer keys (x=0, y=1) and values (a=1, b=2, ...). Each
// file's header comment names the Jepsen test it comes from.
//
// Jepsen's unit tests assert one error type at a time; the tables below say
// what Jepsen's whole checker (jepsen.tests.kafka/checker) would report as
// :error-types for the complete history, worked out by hand from kafka.clj
// and Elle. Where a unit test history would have made Elle add something this
// checker has no notion of (a realtime cycle from an op written at the end of
// the history, an :empty-transaction-graph), the fixture reorders or adds an
// unrelated op, and says so in its header.
//
// Departures from Jepsen's verdict are the cases with ours and why; each
// says why. Those that remain: lost-write-inconsistent and duplicate-many
// (Jepsen's value index keeps one value per offset, so it misses a process
// told or reading one offset twice) and empty (valid with a warning, so that
// exit 1 keeps meaning anomalies). Send positions across assign and
// subscribe are no longer a departure: sendorder.go resets them as Jepsen
// does.

const jepsenDir = "testdata/jepsen"

// jepsenCase is one check of one fixture.
type jepsenCase struct {
	file   string
	wwDeps bool // Jepsen's :ww-deps, our Options.WWDeps
	// jepsen is Jepsen's :error-types for the history, in Jepsen's names.
	jepsen []string
	// ours, when set, is what this checker reports instead, and why says
	// why that is the better answer. Unset, ours is ourNames(jepsen).
	ours []string
	why  string
	// warn, when set, is part of the one warning the check must give;
	// unset, the check must give none.
	warn string
}

var jepsenCases = []jepsenCase{
	{file: "inconsistent-offsets-info-unread", jepsen: []string{"unseen"}},
	{file: "inconsistent-offsets-info-read", jepsen: []string{"inconsistent-offsets", "unseen"}},
	{file: "inconsistent-offsets-real-world", jepsen: []string{"inconsistent-offsets", "unseen"}},
	{file: "g1a", jepsen: []string{"G1a"}},
	{file: "lost-write-consistent", jepsen: []string{"int-send-skip", "lost-write", "unseen"}},
	{
		file:   "lost-write-inconsistent",
		jepsen: []string{"inconsistent-offsets", "lost-write", "unseen"},
		ours:   []string{"inconsistent-offsets", "lost-write", "nonmonotonic-send", "unseen"},
		why: "process 0 is told offset 0 for a, then offset 0 again for b: its later send did not land " +
			"after its earlier one. Jepsen's value index keeps only one value per offset, so it cannot " +
			"place both and does not compare them",
	},
	{file: "lost-write-atomic-unproven", jepsen: nil},
	{file: "lost-write-atomic", jepsen: []string{"lost-write"}},
	{file: "poll-skip", jepsen: []string{"int-send-skip", "lost-write", "poll-skip", "unseen"}},
	{file: "poll-skip-resubscribed", jepsen: []string{"int-send-skip", "lost-write", "unseen"}},
	{file: "poll-skip-still-assigned", jepsen: []string{"int-send-skip", "lost-write", "poll-skip", "unseen"}},
	{file: "txn-abort-rewinds", jepsen: nil},
	{file: "txn-abort-no-rewind", jepsen: []string{"lost-write", "poll-skip", "unseen"}},
	{file: "txn-abort-info-skip", jepsen: []string{"poll-skip", "unseen"}},
	{file: "nonmonotonic-poll", jepsen: []string{"nonmonotonic-poll"}},
	{file: "nonmonotonic-poll-resubscribed", jepsen: nil},
	{file: "nonmonotonic-poll-reassigned", jepsen: nil},
	{file: "nonmonotonic-poll-still-subscribed", jepsen: []string{"nonmonotonic-poll"}},
	{file: "nonmonotonic-poll-still-assigned", jepsen: []string{"nonmonotonic-poll"}},
	{file: "nonmonotonic-send", jepsen: []string{"nonmonotonic-send", "unseen"}},
	{file: "nonmonotonic-send-info", jepsen: []string{"nonmonotonic-send"}},
	{file: "nonmonotonic-send-resubscribed", jepsen: []string{"unseen"}},
	{file: "nonmonotonic-send-reassigned", jepsen: []string{"unseen"}},
	{file: "nonmonotonic-send-still-subscribed", jepsen: []string{"nonmonotonic-send", "unseen"}},
	{file: "nonmonotonic-send-still-assigned", jepsen: []string{"nonmonotonic-send", "unseen"}},
	{file: "int-poll-skip", jepsen: []string{"int-poll-skip", "nonmonotonic-poll"}},
	{file: "int-poll-skip-single", jepsen: []string{"int-poll-skip"}},
	{file: "int-poll-skip-rebalanced", jepsen: nil},
	{file: "int-send-skip", jepsen: []string{"int-send-skip", "lost-write", "unseen"}},
	{file: "int-nonmonotonic-poll", jepsen: []string{"int-nonmonotonic-poll"}},
	{file: "int-nonmonotonic-send", jepsen: []string{"int-nonmonotonic-send", "unseen"}},
	{file: "duplicate", jepsen: []string{"duplicate"}},
	{
		file:   "duplicate-many",
		jepsen: []string{"duplicate", "inconsistent-offsets"},
		ours:   []string{"duplicate", "inconsistent-offsets", "nonmonotonic-poll", "nonmonotonic-send"},
		why: "process 1 reads offset 1 ten times and process 0 is told offset 0 ten times; kafka_test's " +
			"own duplicate-test says reading one offset twice is a nonmonotonic poll. Jepsen misses it " +
			"because its value index keeps one value per offset",
	},
	{file: "duplicate-aborted-poll", jepsen: []string{"duplicate", "unseen"}},
	{file: "realtime-lag-clean", jepsen: nil},
	{file: "unseen-caught-up", jepsen: nil},
	{file: "unseen", jepsen: []string{"unseen"}},
	{file: "g0", wwDeps: true, jepsen: []string{"G0", "PL-1-cycle-exists", "unseen"}},
	{file: "g1c-wr", jepsen: []string{"G1c", "PL-2-cycle-exists"}},
	{file: "g1c-ww-wr", wwDeps: true, jepsen: []string{"G1c", "PL-2-cycle-exists", "unseen"}},
	{file: "g1c-ww-wr", jepsen: []string{"unseen"}},
	{file: "precommitted-read", jepsen: []string{"precommitted-read"}},
	{
		file:   "empty",
		jepsen: []string{"empty-transaction-graph"},
		ours:   []string{},
		why: "nothing in the history is evidence of an anomaly; it stays valid so that exit 1 keeps " +
			"meaning anomalies found, with a warning that nothing was checked",
		warn: "nothing was checked",
	},
}

// jepsenPending are fixtures where this checker is wrong today. They stay out
// of jepsenCases until the checker is fixed; each says what differs.
var jepsenPending = map[string]string{}

// ourNames translates Jepsen's error types to this checker's anomaly names.
// The names are the same, except that Elle's "a cycle exists somewhere"
// fallbacks (PL-1-cycle-exists, PL-2-cycle-exists) are dropped: Elle lists
// them next to the G0/G1c cycle it found, and itself calls them redundant
// then (elle.txn/remove-redundant-cycle-exists).
func ourNames(jepsen []string) []string {
	var out []string
	for _, n := range jepsen {
		if !strings.HasSuffix(n, "-cycle-exists") {
			out = append(out, n)
		}
	}
	return out
}

func (c jepsenCase) name() string {
	if c.wwDeps {
		return c.file + "/ww-deps"
	}
	return c.file
}

func (c jepsenCase) want() []string {
	if c.ours != nil {
		return c.ours
	}
	return ourNames(c.jepsen)
}

func TestJepsenCompat(t *testing.T) {
	for _, c := range jepsenCases {
		t.Run(c.name(), func(t *testing.T) {
			if (c.ours != nil) != (c.why != "") {
				t.Fatalf("table: a case that departs from Jepsen needs both ours and why")
			}
			res, warns := checkJepsenFixture(t, c.file, checkers.Options{WWDeps: c.wwDeps})
			got := anomalyNames(res.AnomalyTypes)
			want := slices.Sorted(slices.Values(c.want()))
			if !slices.Equal(got, want) {
				t.Errorf("anomaly types = %v, want %v (Jepsen: %v)", got, want, c.jepsen)
			}
			if res.Valid != (len(want) == 0) {
				t.Errorf("valid = %v with anomaly types %v", res.Valid, got)
			}
			switch {
			case c.warn == "" && len(warns) > 0:
				t.Errorf("warnings: %q", warns)
			case c.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], c.warn)):
				t.Errorf("warnings: %q, want one saying %q", warns, c.warn)
			}
		})
	}
}

// TestJepsenFixturesAccounted keeps fixtures from going unchecked: every
// file in testdata/jepsen is in jepsenCases or jepsenPending, not both, and
// every name there has a file.
func TestJepsenFixturesAccounted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(jepsenDir, "*.edn"))
	if err != nil {
		t.Fatal(err)
	}
	onDisk := map[string]bool{}
	for _, f := range files {
		onDisk[strings.TrimSuffix(filepath.Base(f), ".edn")] = true
	}
	checked := map[string]bool{}
	for _, c := range jepsenCases {
		checked[c.file] = true
	}
	for name := range onDisk {
		if checked[name] == (jepsenPending[name] != "") {
			t.Errorf("%s.edn must be in exactly one of jepsenCases and jepsenPending", name)
		}
	}
	for name := range checked {
		if !onDisk[name] {
			t.Errorf("jepsenCases names %s.edn, which does not exist", name)
		}
	}
	for name := range jepsenPending {
		if !onDisk[name] {
			t.Errorf("jepsenPending names %s.edn, which does not exist", name)
		}
	}
}

// checkJepsenFixture opens a fixture as the CLI does and checks it. It
// returns the result and every warning, from the reader and the checker.
func checkJepsenFixture(t *testing.T, file string, opts checkers.Options) (checkers.Result, []string) {
	t.Helper()
	path := filepath.Join(jepsenDir, file+".edn")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	src, err := histories.Open(path, histories.FormatEDN)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checkers.Check(src, opts)
	if err != nil {
		t.Fatalf("check %s: %v", path, err)
	}
	warns := slices.Clone(res.Warnings)
	for _, w := range src.Warnings() {
		warns = append(warns, w.String())
	}
	return res, warns
}

func anomalyNames(as []checkers.Anomaly) []string {
	out := make([]string, 0, len(as))
	for _, a := range as {
		out = append(out, string(a))
	}
	slices.Sort(out)
	return out
}

// TestJepsenSparseIndexes checks every fixture again with its op indexes
// spread out (i -> 7i+2), as Jepsen's own tests and filtered histories have
// them, read through EDN: the verdict is the same and every case names the
// indexes the history gave.
func TestJepsenSparseIndexes(t *testing.T) {
	spread := func(i int64) int64 { return 7*i + 2 }
	for _, c := range jepsenCases {
		t.Run(c.name(), func(t *testing.T) {
			dense, _ := checkJepsenFixture(t, c.file, checkers.Options{WWDeps: c.wwDeps})
			ops, _, err := histories.ReadFile(filepath.Join(jepsenDir, c.file+".edn"), histories.FormatEDN)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ops {
				ops[i].Index = spread(ops[i].Index)
			}
			var edn bytes.Buffer
			if err := histories.ExportEDN(&edn, histories.FromOps(ops)); err != nil {
				t.Fatal(err)
			}
			src := histories.NewEDNReader(&edn, c.file+"-sparse.edn")
			sparse, err := checkers.Check(src, checkers.Options{WWDeps: c.wwDeps})
			if err != nil {
				t.Fatalf("sparse indexes rejected: %v", err)
			}
			for a, cases := range dense.Anomalies {
				got := sparse.Anomalies[a]
				for i := range cases {
					respread(&cases[i], spread)
					if i < len(got) {
						checkNamedOps(t, got[i].Explanation)
						cases[i].Explanation = got[i].Explanation
					}
				}
				if !reflect.DeepEqual(got, cases) {
					t.Errorf("%s cases:\n got %+v\nwant %+v", a, got, cases)
				}
			}
			if !slices.Equal(sparse.AnomalyTypes, dense.AnomalyTypes) {
				t.Errorf("anomaly types %v, dense %v", sparse.AnomalyTypes, dense.AnomalyTypes)
			}
		})
	}
}

// checkNamedOps fails if an explanation names an op ("op 9") that is not
// an index of the spread history.
func checkNamedOps(t *testing.T, explanation string) {
	t.Helper()
	for _, m := range regexp.MustCompile(`\bop (\d+)`).FindAllStringSubmatch(explanation, -1) {
		if n, _ := strconv.ParseInt(m[1], 10, 64); (n-2)%7 != 0 {
			t.Errorf("explanation names op %d, which the history does not have: %s", n, explanation)
		}
	}
}

// respread maps the op indexes a case names.
func respread(c *checkers.Case, spread func(int64) int64) {
	for i := range c.Ops {
		c.Ops[i] = spread(c.Ops[i])
	}
	for i := range c.Cycle {
		c.Cycle[i].From, c.Cycle[i].To = spread(c.Cycle[i].From), spread(c.Cycle[i].To)
	}
}
