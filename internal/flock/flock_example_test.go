package flock_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kafkachaos/kafkachaos/internal/flock"
)

// One process at a time fills a shared cache entry.
func Example() {
	dir, _ := os.MkdirTemp("", "flock-example")
	defer os.RemoveAll(dir)
	unlock, err := flock.Lock(filepath.Join(dir, "cache.lock"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer unlock()
	fmt.Println("locked")
	// Output: locked
}
