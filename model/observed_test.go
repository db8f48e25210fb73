package model

import (
	"reflect"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// result builds a checker result with one case per named anomaly.
func result(as ...checkers.Anomaly) checkers.Result {
	r := checkers.Result{Valid: len(as) == 0, Anomalies: map[checkers.Anomaly][]checkers.Case{}}
	for _, a := range as {
		r.AnomalyTypes = append(r.AnomalyTypes, a)
		r.Anomalies[a] = []checkers.Case{{Ops: []int64{1}, Explanation: "test"}}
	}
	return r
}

func TestObserved(t *testing.T) {
	cases := []struct {
		name      string
		anomalies []checkers.Anomaly
		want      Guarantee
	}{
		{"clean run is exactly-once", nil, ExactlyOnce},
		{"lost-write is loss", []checkers.Anomaly{checkers.LostWrite}, AtMostOnce},
		{"unseen after final reads is loss", []checkers.Anomaly{checkers.Unseen}, AtMostOnce},
		{"lost-after-read is loss", []checkers.Anomaly{checkers.LostAfterRead}, AtMostOnce},
		{"torn-transaction is loss", []checkers.Anomaly{checkers.TornTransaction}, AtMostOnce},
		{"torn-transaction with its lost write is loss", []checkers.Anomaly{checkers.TornTransaction, checkers.LostWrite, checkers.Unseen}, AtMostOnce},
		{"interleaved-transaction loses nothing", []checkers.Anomaly{checkers.InterleavedTransaction}, ExactlyOnce},
		{"interleaved-transaction whose later txn aborted is loss", []checkers.Anomaly{checkers.InterleavedTransaction, checkers.TornTransaction, checkers.Unseen}, AtMostOnce},
		{"lost-delivery is loss", []checkers.Anomaly{checkers.LostDelivery}, AtMostOnce},
		{"duplicate is duplication", []checkers.Anomaly{checkers.Duplicate}, AtLeastOnce},
		{"duplicate-delivery is duplication", []checkers.Anomaly{checkers.DuplicateDelivery}, AtLeastOnce},
		{"aborted read is an extra delivery", []checkers.Anomaly{checkers.G1a}, AtLeastOnce},
		{"precommitted read is an extra delivery", []checkers.Anomaly{checkers.PrecommittedRead}, AtLeastOnce},
		{"loss and duplicates are none", []checkers.Anomaly{checkers.Unseen, checkers.DuplicateDelivery}, None},
		{"order anomalies keep the guarantee", []checkers.Anomaly{checkers.NonmonotonicPoll, checkers.G1c, checkers.InconsistentOffsets}, ExactlyOnce},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Observed(result(c.anomalies...)); got != c.want {
				t.Errorf("Observed(%v) = %v, want %v", c.anomalies, got, c.want)
			}
		})
	}
}

func TestObserveSplitsHopsAndAxes(t *testing.T) {
	o := Observe(result(checkers.Duplicate, checkers.LostDelivery, checkers.PollSkip, "made-up"))
	want := Observation{
		Producer:     AtLeastOnce,
		Consumer:     AtMostOnce,
		EndToEnd:     None,
		Loss:         []checkers.Anomaly{checkers.LostDelivery},
		Duplication:  []checkers.Anomaly{checkers.Duplicate},
		OrderOnly:    []checkers.Anomaly{checkers.PollSkip},
		Unclassified: []checkers.Anomaly{"made-up"},
	}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("Observe = %+v\nwant %+v", o, want)
	}
}

// TestObservedReadsCasesWithoutTypes: a finding listed only in Anomalies (or
// only in AnomalyTypes) still counts.
func TestObservedReadsCasesWithoutTypes(t *testing.T) {
	r := result(checkers.LostWrite)
	r.AnomalyTypes = nil
	if Observed(r) != AtMostOnce {
		t.Error("a case without its type was ignored")
	}
	r = checkers.Result{AnomalyTypes: []checkers.Anomaly{checkers.Duplicate}}
	if Observed(r) != AtLeastOnce {
		t.Error("a type without cases was ignored")
	}
	r = checkers.Result{Anomalies: map[checkers.Anomaly][]checkers.Case{checkers.Duplicate: {}}}
	if Observed(r) != ExactlyOnce {
		t.Error("an empty case list counted as a finding")
	}
}

// TestEveryKnownAnomalyIsClassified guards the table against a new anomaly
// name being added to checkers without a decision here.
func TestEveryKnownAnomalyIsClassified(t *testing.T) {
	known := []checkers.Anomaly{
		checkers.LostWrite, checkers.Unseen, checkers.LostAfterRead, checkers.Duplicate, checkers.InconsistentOffsets,
		checkers.NonmonotonicSend, checkers.IntNonmonotonicSend, checkers.IntSendSkip,
		checkers.PollSkip, checkers.NonmonotonicPoll, checkers.IntPollSkip, checkers.IntNonmonotonicPoll,
		checkers.DuplicateDelivery, checkers.LostDelivery,
		checkers.G1a, checkers.PrecommittedRead, checkers.G0, checkers.G1c, checkers.TornTransaction,
		checkers.InterleavedTransaction,
	}
	for _, a := range known {
		if len(Observe(result(a)).Unclassified) != 0 {
			t.Errorf("%s is not classified", a)
		}
	}
}
