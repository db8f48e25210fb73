package checkers

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// eachKey calls fn once for every key, on up to workers goroutines (0:
// GOMAXPROCS), and returns when all calls have. The per-key passes (merging
// and numbering a key's log) touch only their key's state, so they run in
// parallel and give what a serial run gives; what they find for the whole
// history, fn writes into the key's slot of a result slice, to be merged
// afterwards in key order.
func eachKey(keys []*keyState, workers int, fn func(i int, ks *keyState)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(keys))
	if workers <= 1 {
		for i, ks := range keys {
			fn(i, ks)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(keys); i = int(next.Add(1) - 1) {
				fn(i, keys[i])
			}
		})
	}
	wg.Wait()
}
