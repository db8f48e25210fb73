package realbroker

import (
	"fmt"
	"os"
	"time"
)

// A broker whose wall clock the harness moves runs with libfaketime
// preloaded (Debian's faketime package), reading its offset from a control
// file the harness rewrites; the local provider's JVMs and the docker
// provider's containers set it up the same way, with what is below.

// FaketimeEnv is the libfaketime environment of a broker JVM whose wall
// clock follows file (LD_PRELOAD is the provider's, which knows where the
// library is). libfaketime rereads the file at most once a second
// (FAKETIME_CACHE_DURATION; with no cache it reads the file at every
// clock read, ~18 µs each). FAKETIME_DONT_FAKE_MONOTONIC keeps nanoTime
// real. FAKETIME_FORCE_MONOTONIC_FIX=0 undoes a workaround libfaketime
// 0.9.10 turns on by itself for Debian 12's glibc: with it, Java 17's
// timed waits on monotonic condition variables (LockSupport.parkNanos,
// Object.wait(ms)) returned at once, every JVM thread that waits with a
// timeout spun, and a KRaft quorum never formed (3 of 3 starts: "not
// serving after 3m0s"; 3 brokers start in ~20 s without the library).
func FaketimeEnv(file string) []string {
	return []string{"FAKETIME_TIMESTAMP_FILE=" + file, "FAKETIME_CACHE_DURATION=1",
		"FAKETIME_DONT_FAKE_MONOTONIC=1", "FAKETIME_FORCE_MONOTONIC_FIX=0"}
}

// WriteClockFile sets the offset libfaketime reads from file, replacing
// the file whole (rename) so that a reread never sees half of it. A
// container must see the file through a bind mount of its directory: a
// bind mount of the file itself would keep the replaced inode.
func WriteClockFile(file string, offset time.Duration) error {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, fmt.Appendf(nil, "%+.3f\n", offset.Seconds()), 0o644); err != nil {
		return fmt.Errorf("clock control file: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return fmt.Errorf("clock control file: %w", err)
	}
	return nil
}
