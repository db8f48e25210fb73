package checkers_test

// Benchmarks of Check on large simulated correct histories: parse-only and
// full check of the same file in one run, with peak heap.
//
//	go test ./checkers/ -run '^$' -bench BenchmarkSimHistory -count 6 | tee new.txt
//	KAFKACHAOS_BENCH_10M=1 go test ./checkers/ -run '^$' -bench BenchmarkSimHistory -benchtime 1x -timeout 30m
//	benchstat old.txt new.txt
//
// The 10M-op history (about 2 GB of JSONL) is only generated when
// KAFKACHAOS_BENCH_10M=1. Histories go to the test's temp dir and are
// generated once per size, outside the timed loops.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/groundtruth"
)

func BenchmarkSimHistory(b *testing.B) {
	sizes := []int{1_000_000}
	if os.Getenv("KAFKACHAOS_BENCH_10M") == "1" {
		sizes = append(sizes, 10_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("ops=%dM", n/1_000_000), func(b *testing.B) {
			src := generated(b, n)
			b.Run("parse", func(b *testing.B) {
				peak := watchHeap()
				for b.Loop() {
					if err := src.Scan(func(*histories.Op) error { return nil }); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(peak(), "peak-heap-MiB")
			})
			b.Run("check", func(b *testing.B) {
				peak := watchHeap()
				for b.Loop() {
					res, err := checkers.Check(src, checkers.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if !res.Valid {
						b.Fatalf("simulated correct history judged invalid: %v", res.AnomalyTypes)
					}
				}
				b.ReportMetric(peak(), "peak-heap-MiB")
			})
		})
	}
}

// generated writes a correct history of about n ops and opens it.
func generated(b *testing.B, n int) histories.Source {
	path := filepath.Join(b.TempDir(), "history.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := groundtruth.Generate(1, n, f); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d ops (%d MiB) in %v", n, fi.Size()>>20, time.Since(start).Round(time.Millisecond))
	src, err := histories.Open(path, histories.FormatJSONL)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	return src
}

// watchHeap samples the heap in use until the returned function is called,
// which reports the peak in MiB. Sampling every 5 ms can miss a short spike;
// it sees the sustained peak, which is what decides whether a run fits.
func watchHeap() func() float64 {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() float64 {
		close(stop)
		wg.Wait()
		return float64(peak.Load()) / (1 << 20)
	}
}
