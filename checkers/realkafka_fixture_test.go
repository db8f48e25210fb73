package checkers_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// TestRealKafkaTruncationAfterRead checks a history from real Kafka 4.4.0
// (min.insync.replicas=1, unclean leader election; run
// TestChaosLocalMinISR1UncleanElectionLoses): after an unclean election the
// old leader truncated key 0 to offset 202 below its high watermark 1196
// (testdata/minisr1-unclean-truncated.broker-log.txt). Consumer 4 had read
// offsets 0..1268; the final reads (process 5, marked "final": true in the
// fixture) found only 0..201. Every record read is neither lost-write nor
// unseen, and no value replaced them, so only lost-after-read can see it.
func TestRealKafkaTruncationAfterRead(t *testing.T) {
	src, err := histories.Open(filepath.Join("testdata", "minisr1-unclean-truncated.jsonl"), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checkers.Check(src, checkers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.AnomalyTypes, []checkers.Anomaly{checkers.LostAfterRead}) {
		t.Fatalf("anomalies %v, want only lost-after-read", res.AnomalyTypes)
	}
	if n := res.Counts[checkers.LostAfterRead]; n != 1067 {
		t.Fatalf("%d lost-after-read values, want 1067 (offsets 202..1268)", n)
	}
	for _, c := range res.Anomalies[checkers.LostAfterRead] {
		if *c.Key != 0 || len(c.Offsets) != 1 || c.Offsets[0] < 202 || c.Offsets[0] > 1268 || len(c.Ops) != 3 {
			t.Fatalf("case outside the truncated range or without writer, reader and final op: %+v", c)
		}
	}
	if g := model.Observed(res); g != model.AtMostOnce {
		t.Fatalf("observed %v, want at-most-once", g)
	}
}
