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

// TestRealKafkaPowerLossRewritesOffsets checks a history from real Kafka
// 4.4.0 (a campaign draw, docs/evidence/kafka-17754-hunt/java-4.4.0-kafka-4.4.0/draw-24):
// a power loss took the whole log of an RF 1 topic, the producers wrote
// offsets 0.. again with new values, and the copiers' group, whose
// committed offset lay past the new log end, read the new records from
// offset 0. It processed no record twice, no earlier transaction's write
// sits inside a later one, and the final reads skipped nothing (they passed
// over markers and aborted records at offsets that had held lost records):
// the lost records are lost-after-read and the rewritten offsets
// inconsistent-offsets.
func TestRealKafkaPowerLossRewritesOffsets(t *testing.T) {
	src, err := histories.Open(filepath.Join("..", "docs", "evidence", "kafka-17754-hunt", "java-4.4.0-kafka-4.4.0", "draw-24", "history.jsonl"), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checkers.Check(src, checkers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []checkers.Anomaly{checkers.DuplicateDelivery, checkers.InterleavedTransaction, checkers.IntPollSkip, checkers.PollSkip} {
		if n := res.Counts[a]; n != 0 {
			t.Errorf("%s %d, want none: %v", a, n, res.Anomalies[a][:min(2, len(res.Anomalies[a]))])
		}
	}
	for a, want := range map[checkers.Anomaly]int64{checkers.LostAfterRead: 506, checkers.InconsistentOffsets: 77} {
		if n := res.Counts[a]; n != want {
			t.Errorf("%s %d, want %d", a, n, want)
		}
	}
	if o := model.Observe(res); o.Producer != model.AtMostOnce || o.Consumer != model.ExactlyOnce {
		t.Errorf("observed producer %v, consumer %v; want at-most-once and exactly-once", o.Producer, o.Consumer)
	}
}
