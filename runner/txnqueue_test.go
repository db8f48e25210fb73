package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/report"
)

// queueScenario is a 4s run of one producer and one read_committed group
// consumer on keys 0-1 of "in", beside two txn queues whose transactions
// mix sends to and polls of the same keys, a third of them aborted.
func queueScenario() generators.Scenario {
	s := smallScenario()
	s.Name = "queue"
	s.Producer.TransactionalID = "queue"
	s.Workload.TxnQueues, s.Workload.TxnSize, s.Workload.AbortRatio, s.Workload.Mix.Txn = 2, 4, 0.3, 2
	s.TimeLimit = generators.Duration(4 * time.Second)
	return s
}

// TestRunTxnQueues: runs with txn queues hold, without faults and with
// crash-producer crashing producers and queues every 300ms. Transactions
// commit and abort; no committed transaction reads an aborted value (G1a)
// or one before its commit, or is torn or interleaved; committed transactions read other
// committed ones' values, so that the absence of G1a proves something. Without
// faults a txn op's outcome is unknown (info) only when its commit timed
// out (a loaded machine; the run's end cutting its retries); under crashes
// some are info, each one a queue crashed before its commit.
func TestRunTxnQueues(t *testing.T) {
	for _, c := range []struct {
		name    string
		nemesis []generators.Fault
	}{
		{"no faults", nil},
		{"crashes", []generators.Fault{{Kind: generators.KindCrashProducer, Start: generators.Duration(time.Second),
			Duration: generators.Duration(2500 * time.Millisecond), Params: generators.FaultParams{Every: generators.Duration(300 * time.Millisecond)}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := queueScenario()
			s.Nemesis = c.nemesis
			out, err := Run(context.Background(), s, Options{RunsDir: t.TempDir(), TestName: t.Name(), Keep: true})
			if err != nil {
				t.Fatal(err)
			}
			ops := out.Stats.OpsByType
			t.Logf("held %v; anomalies %v; ops %v; faults %+v; crashes %d", out.Held, out.Result.Counts, ops, out.Stats.Faults, out.Stats.Crashes)
			if !out.Held {
				t.Errorf("a run with txn queues did not hold: %v", out.Result.Counts)
			}
			for _, a := range []checkers.Anomaly{checkers.G1a, checkers.PrecommittedRead, checkers.LostWrite, checkers.TornTransaction,
				checkers.InterleavedTransaction, checkers.G1c} {
				if n := out.Result.Counts[a]; n != 0 {
					t.Errorf("%d %s: %+v", n, a, out.Result.Anomalies[a])
				}
			}
			if ops["txn ok"] == 0 || ops["txn fail"] == 0 {
				t.Errorf("want committed and aborted transactions: %v", ops)
			}
			if n := committedReadsOfCommitted(t, out.Dir); n == 0 {
				t.Error("no committed transaction read a value another one committed")
			}
			if c.nemesis == nil {
				for _, op := range unknownTxns(t, out.Dir) {
					e := strings.ToLower(op.Error)
					if !strings.Contains(e, "timed out") && !strings.Contains(e, "context canceled") && !strings.Contains(e, "deadline exceeded") {
						t.Errorf("txn op %d of unknown outcome in a run without faults, and its commit neither timed out nor met the run's end: %q", op.Index, op.Error)
					}
				}
			} else if ops["txn info"] == 0 {
				t.Errorf("no queue crashed mid-transaction: %+v", out.Stats.Faults)
			}
		})
	}
}

// unknownTxns are the txn ops of the history in dir whose outcome is
// unknown (info).
func unknownTxns(t *testing.T, dir string) []histories.Op {
	t.Helper()
	ops, _, err := histories.ReadFile(filepath.Join(dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	var out []histories.Op
	for _, o := range ops {
		if o.F == histories.FTxn && o.Type == histories.Info {
			out = append(out, o)
		}
	}
	return out
}

// committedReadsOfCommitted counts the values ok txn ops of the history in
// dir read that other ok txn ops sent.
func committedReadsOfCommitted(t *testing.T, dir string) int {
	t.Helper()
	ops, _, err := histories.ReadFile(filepath.Join(dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	sent := map[int64]int64{} // value -> writer op
	for _, o := range ops {
		for _, m := range o.Mops {
			if o.F == histories.FTxn && o.Type == histories.OK && m.F == histories.MSend {
				sent[m.Value] = o.Index
			}
		}
	}
	n := 0
	for _, o := range ops {
		for _, m := range o.Mops {
			for _, recs := range m.Records {
				for _, r := range recs {
					if w, ok := sent[r.Value]; ok && o.F == histories.FTxn && o.Type == histories.OK && w != o.Index {
						n++
					}
				}
			}
		}
	}
	return n
}
