package kafkachaos_test

import (
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// copyUnderCrashes is a 5s copy of keys 0-1 of "in" to keys 2-3 of "out"
// by one copier of mode, subscribing or assigning, whose copier and
// producer crash every 300ms.
func copyUnderCrashes(mode string, assign bool) generators.Scenario {
	s := base("copy", 5*time.Second)
	s.Keys = generators.SequentialKeys(2, "in", "out")
	s.Workload.Copiers, s.Workload.TxnSize = 1, 5
	s.Workload.Mix.Txn, s.Workload.Rate = 2, 300
	s.Workload.CopierMode, s.Workload.CopierAssign = mode, assign
	if mode == generators.CopyTransactional {
		s.Producer.TransactionalID = "chaos-copier"
		s.Consumer.CommitStrategy = model.CommitTransactional
	}
	start, dur := window(s)
	s.Nemesis = []generators.Fault{{Kind: generators.KindCrashProducer, Start: start, Duration: dur,
		Params: generators.FaultParams{Every: d(300 * time.Millisecond)}}}
	return s
}

// The at-least-once copier is exactly-once's negative control. Under the
// same crashes, the plain copier (poll, send each record, then commit the
// offsets) copies again what a crashed predecessor sent but did not
// commit: duplicates on the output keys, which its expectation
// (at-least-once) allows. The transactional copier's crashed transaction is
// aborted with its offsets: no duplicate, exactly-once.
func TestChaosCopyAtLeastOnceDuplicatesTransactionalDoesNot(t *testing.T) {
	parallelOnEmbedded(t)
	for _, c := range []struct {
		mode   string
		assign bool
	}{
		{generators.CopyAtLeastOnce, false},
		{generators.CopyAtLeastOnce, true},
		{generators.CopyTransactional, false},
		{generators.CopyTransactional, true},
	} {
		name := c.mode + "-subscribe"
		if c.assign {
			name = c.mode + "-assign"
		}
		t.Run(name, func(t *testing.T) {
			s := copyUnderCrashes(c.mode, c.assign)
			s.Name = "copy-" + name
			out := run(t, s)
			if out.Stats.Crashes == 0 {
				t.Fatalf("no copier or producer crashed: %+v", out.Stats.Faults)
			}
			dups := out.Result.Counts[checkers.Duplicate]
			t.Logf("%s: %d crashes -> %d duplicates on the output, %d duplicate deliveries; expected %s, observed %s",
				name, out.Stats.Crashes, dups, out.Result.Counts[checkers.DuplicateDelivery], out.Expected.EndToEnd, out.Observed.EndToEnd)
			if c.mode == generators.CopyTransactional {
				mustHaveWorked(t, out, 10, "txn")
				wantHop(t, "end-to-end", out.Observed.EndToEnd, model.ExactlyOnce)
				for _, a := range []checkers.Anomaly{checkers.Duplicate, checkers.DuplicateDelivery, checkers.G1a} {
					if n := out.Result.Counts[a]; n != 0 {
						t.Errorf("transactional copy: %d %s", n, a)
					}
				}
				return
			}
			mustHaveWorked(t, out, 10, "commit")
			if out.Expected.EndToEnd != model.AtLeastOnce {
				t.Errorf("expected %s of a plain copier, want at-least-once: %v", out.Expected.EndToEnd, out.Expected.Reasons())
			}
			if dups == 0 {
				t.Errorf("the plain copier copied nothing twice after %d crashes", out.Stats.Crashes)
			}
			wantHop(t, "end-to-end", out.Observed.EndToEnd, model.AtLeastOnce)
		})
	}
}
