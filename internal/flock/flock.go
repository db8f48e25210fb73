package flock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Lock takes an exclusive advisory lock on path (created if missing),
// waiting for whoever holds it; the returned func releases it. The lock
// dies with the process, so a crashed holder never leaves it taken.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		// A signal may interrupt the wait; only a real failure ends it.
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
