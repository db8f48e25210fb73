package report

import (
	"fmt"
	"io"
	"testing"
)

// BenchmarkRender measures report generation; the "bytes" metric is the
// page size. 1M ops runs only with -bench 1M (it takes seconds and ~1 GB).
func BenchmarkRender(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			dir := b.TempDir()
			synth(b, dir, n, 5)
			var size countWriter
			b.ResetTimer()
			for b.Loop() {
				size = 0
				if err := Render(&size, dir, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size), "page-bytes")
		})
	}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
