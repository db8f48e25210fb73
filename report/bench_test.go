package report

import (
	"fmt"
	"io"
	"testing"
)

// BenchmarkRender measures report generation; the "page-bytes" metric is
// the page size. Pick a size with -bench 'Render/100k' (or 1000k: about two
// seconds and 130 MB allocated; the history is synthesized first, untimed).
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
