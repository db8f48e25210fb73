package runner

import (
	"context"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// copyScenario is a short transactional copy run: one producer writes
// keys 0-1 of "in", one copier copies them to keys 2-3 of "out".
func copyScenario() generators.Scenario {
	s := smallScenario()
	s.Name = "copy"
	s.Keys = generators.SequentialKeys(2, "in", "out")
	s.Producer.TransactionalID = "copier"
	s.Consumer.CommitStrategy = model.CommitTransactional
	s.Workload = generators.Workload{Producers: 1, Lanes: 2, Copiers: 1, Mode: generators.ModeGroup, Group: "g",
		Mix: generators.Mix{Send: 1, Txn: 1}, Rate: 200, TxnSize: 5, PollBatch: 50}
	return s
}

// TestRunCopiesThroughCrashes: a transactional copy run whose copier and
// producer are crashed again and again holds, ends without a harness
// error, and counts a crash as fired only once it happened (each fired
// copier crash has its crash op in the history).
func TestRunCopiesThroughCrashes(t *testing.T) {
	s := copyScenario()
	s.TimeLimit = generators.Duration(4 * time.Second)
	s.Nemesis = []generators.Fault{{Kind: generators.KindCrashProducer, Start: generators.Duration(time.Second),
		Duration: generators.Duration(2 * time.Second), Params: generators.FaultParams{Every: generators.Duration(500 * time.Millisecond)}}}
	start := time.Now()
	out, err := Run(context.Background(), s, Options{RunsDir: t.TempDir(), TestName: t.Name(), Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("took %v; held %v; faults %+v; crashes %d; ops %v", time.Since(start), out.Held, out.Stats.Faults,
		out.Stats.Crashes, out.Stats.OpsByType)
	if !out.Held {
		t.Errorf("a transactional copy did not hold: %v", out.Result.Counts)
	}
	f := out.Stats.Faults[0]
	if f.Fired == 0 || out.Stats.Crashes < f.Fired {
		t.Errorf("fault %+v fired, %d crash ops: a fired crash must have happened", f, out.Stats.Crashes)
	}
	if out.Stats.OpsByType["txn ok"] == 0 {
		t.Errorf("no transaction committed: %v", out.Stats.OpsByType)
	}
}
