package checkers_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/histgen"
)

// synthetic writes a histgen history of n ops (8 keys, 16 processes) to a
// file and returns its path and what was planted.
func synthetic(tb testing.TB, n, lost, dup int) (string, histgen.Planted) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "history.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	planted, err := histgen.Write(f, histgen.Config{Ops: n, Keys: 8, Processes: 16, LostWrites: lost, Duplicates: dup, Seed: 1,
		TroubleOneIn: 100, CrashOneIn: 10_000})
	if err != nil {
		tb.Fatal(err)
	}
	return path, planted
}

// BenchmarkCheckSynthetic is what kafkachaos check does to a file: read
// and judge a 1M-op synthetic history with planted anomalies.
//
//	go test ./checkers/ -run '^$' -bench CheckSynthetic -benchmem
func BenchmarkCheckSynthetic(b *testing.B) {
	path, planted := synthetic(b, 1_000_000, 40, 50)
	src, err := histories.Open(path, histories.FormatJSONL)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := checkers.Check(src, checkers.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Counts["lost-write"] != planted.LostWrites || res.Counts["duplicate"] != planted.Duplicates {
			b.Fatalf("counts %v, planted %+v", res.Counts, planted)
		}
	}
	b.ReportMetric(float64(planted.Ops)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
