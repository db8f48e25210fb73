package realbroker

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// TBF is the tc arguments after "qdisc replace dev DEV" that cap a link at
// bitsPerSecond: this kernel has no netem, so a slow link is a bandwidth
// cap, not added latency.
func TBF(bitsPerSecond int64) []string {
	return []string{"root", "tbf", "rate", fmt.Sprintf("%dbit", bitsPerSecond), "burst", "32kbit", "latency", "500ms"}
}

// IgnoreNoQdisc makes deleting an absent root qdisc (tc's output out, its
// error err) a success, so that clearing a slow link is idempotent.
func IgnoreNoQdisc(out string, err error) error {
	if err != nil && (strings.Contains(out, "handle of zero") || strings.Contains(out, "No such file")) {
		return nil
	}
	return err
}

// Flock takes an exclusive advisory lock on path (created if missing),
// released by the returned func: it serialises runs of several processes
// on one machine (image builds, bridge set-up).
func Flock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
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
