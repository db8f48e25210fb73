package checkers_test

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/groundtruth"
)

// BenchmarkCheckInMemory measures the checker alone, without parsing: a
// correct simulated history held in memory, checked in full each iteration.
// Compare with BenchmarkSimHistory, which includes reading JSONL twice.
//
//	go test ./checkers/ -run '^$' -bench CheckInMemory -benchmem
func BenchmarkCheckInMemory(b *testing.B) {
	const n = 300_000
	var ops checkers.Ops
	err := groundtruth.GenerateTo(1, n, groundtruth.DefaultConfig(), func(op *histories.Op) error {
		ops = append(ops, *op) // the simulator does not change an op once emitted
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := checkers.Check(ops, checkers.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Valid {
			b.Fatalf("correct history judged invalid: %v", res.AnomalyTypes)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ops)), "ns/history-op")
}
