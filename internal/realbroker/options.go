package realbroker

import (
	"fmt"
	"os"
	"time"
)

// Defaults fills the options both providers share when left zero: 512m
// heaps (three brokers on two cores), a readiness wait of 3 minutes (two
// shared cores under load have needed close to one), messages to stderr.
func Defaults(heap *string, startTimeout *time.Duration, logf *func(format string, args ...any)) {
	if *heap == "" {
		*heap = "512m"
	}
	if *startTimeout == 0 {
		*startTimeout = 3 * time.Minute
	}
	if *logf == nil {
		*logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
}
