package checkers_test

import (
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/groundtruth"
	"github.com/kafkachaos/kafkachaos/model"
)

// Property tests against a simulated correct Kafka (internal/groundtruth): its
// histories must check clean, and each injected anomaly must be found alone,
// with the change of observed guarantee it implies. Failing histories shrink
// to a few ops; rerun one with -rapid.seed.

// Histories of up to maxSteps scheduling steps; injections start from at
// least minInjectSteps, so that most histories have somewhere to inject.
const (
	maxSteps       = 60
	minInjectSteps = 30
)

func check(t *rapid.T, ops []histories.Op, opts checkers.Options) checkers.Result {
	res, err := checkers.Check(checkers.Ops(ops), opts)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return res
}

func TestPropertySimulatedHistoriesAreClean(t *testing.T) {
	for _, opts := range []checkers.Options{{}, {WWDeps: true}} {
		rapid.Check(t, func(t *rapid.T) {
			ops := groundtruth.Gen(groundtruth.SmallConfig(), 0, maxSteps).Draw(t, "history")
			res := check(t, ops, opts)
			if !res.Valid || len(res.AnomalyTypes) > 0 {
				t.Fatalf("correct history (%d ops) judged invalid: %v\n%v", len(ops), res.AnomalyTypes, res.Anomalies)
			}
			if g := model.Observed(res); g != model.ExactlyOnce {
				t.Fatalf("observed %v on a correct history", g)
			}
		})
	}
}

// wantGuarantee is what each injected kind does to the observed guarantee:
// losses leave at-most-once, extra deliveries at-least-once, and order
// anomalies leave the delivery count (exactly-once) alone.
var wantGuarantee = map[groundtruth.Kind]model.Guarantee{
	groundtruth.LostWrite: model.AtMostOnce, groundtruth.Unseen: model.AtMostOnce, groundtruth.LostDelivery: model.AtMostOnce,
	groundtruth.Duplicate: model.AtLeastOnce, groundtruth.DuplicateDelivery: model.AtLeastOnce,
	groundtruth.G1a: model.AtLeastOnce, groundtruth.PrecommittedRead: model.AtLeastOnce,
	groundtruth.InconsistentOffsets: model.ExactlyOnce, groundtruth.NonmonotonicSend: model.ExactlyOnce,
	groundtruth.IntNonmonotonicSend: model.ExactlyOnce, groundtruth.IntSendSkip: model.ExactlyOnce,
	groundtruth.PollSkip: model.ExactlyOnce, groundtruth.NonmonotonicPoll: model.ExactlyOnce,
	groundtruth.IntPollSkip: model.ExactlyOnce, groundtruth.IntNonmonotonicPoll: model.ExactlyOnce,
	groundtruth.G0: model.ExactlyOnce, groundtruth.G1c: model.ExactlyOnce,
	groundtruth.TornTransaction: model.AtMostOnce, groundtruth.InterleavedTransaction: model.ExactlyOnce,
}

func TestPropertyInjectedAnomalyFoundAlone(t *testing.T) {
	for _, kind := range groundtruth.Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			want, ok := wantGuarantee[kind]
			if !ok {
				t.Fatalf("no expected guarantee for %q", kind)
			}
			rapid.Check(t, func(t *rapid.T) {
				ops := groundtruth.Gen(groundtruth.SmallConfig(), minInjectSteps, maxSteps).Draw(t, "history")
				inj, err := groundtruth.Inject(ops, kind, groundtruth.RapidChooser(t))
				if errors.Is(err, groundtruth.ErrNotApplicable) {
					t.Skip("nothing to inject into")
				}
				if err != nil {
					t.Fatal(err)
				}
				res := check(t, inj.Ops, checkers.Options{WWDeps: inj.WWDeps})
				assertExactly(t, res, inj)
				assertCasesPointIntoHistory(t, res, len(inj.Ops))
				if g := model.Observed(res); g != want {
					t.Fatalf("observed %v, want %v", g, want)
				}
			})
		})
	}
}

func assertExactly(t *rapid.T, res checkers.Result, inj groundtruth.Injection) {
	var want, got []string
	for _, k := range inj.Expect {
		want = append(want, string(k))
	}
	for _, a := range res.AnomalyTypes {
		got = append(got, string(a))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || res.Valid {
		t.Fatalf("found %v (valid=%v), want exactly %v\n%v", got, res.Valid, want, res.Anomalies)
	}
}

func assertCasesPointIntoHistory(t *rapid.T, res checkers.Result, n int) {
	for a, cases := range res.Anomalies {
		if len(cases) == 0 {
			t.Fatalf("%s listed without cases", a)
		}
		for _, c := range cases {
			if len(c.Ops) == 0 {
				t.Fatalf("%s case names no op: %+v", a, c)
			}
			for _, i := range c.Ops {
				if i < 0 || i >= int64(n) {
					t.Fatalf("%s case names op %d of %d", a, i, n)
				}
			}
		}
	}
}

// TestPropertyReadUncommittedOnlyAddsG1a: a read_uncommitted consumer that
// reads every record of each key, aborted ones included, puts aborted records
// into the version order. Reading them is G1a; the read_committed consumers
// of the same history, which passed over them, skipped and lost nothing.
func TestPropertyReadUncommittedOnlyAddsG1a(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := groundtruth.Gen(groundtruth.SmallConfig(), minInjectSteps, maxSteps).Draw(t, "history")
		ops, aborted, err := groundtruth.ReadUncommitted(ops)
		if err != nil {
			t.Fatal(err)
		}
		res := check(t, ops, checkers.Options{})
		var want []checkers.Anomaly
		if aborted > 0 {
			want = []checkers.Anomaly{checkers.G1a}
		}
		if !slices.Equal(res.AnomalyTypes, want) {
			t.Fatalf("%d aborted records read: found %v, want %v\n%v", aborted, res.AnomalyTypes, want, res.Anomalies)
		}
		if n := res.Counts[checkers.G1a]; n != int64(aborted) {
			t.Fatalf("%d G1a cases for %d aborted records read", n, aborted)
		}
	})
}
