package clienttest

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
)

// CheckClean fails t unless the checkers, run over ops with their
// default options, find the history valid and without any anomaly.
func CheckClean(t testing.TB, ops []histories.Op) {
	t.Helper()
	res, err := checkers.Check(histories.FromOps(ops), checkers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || len(res.AnomalyTypes) > 0 {
		t.Fatalf("checker found %v (counts %v): %+v", res.AnomalyTypes, res.Counts, res.Anomalies)
	}
}
