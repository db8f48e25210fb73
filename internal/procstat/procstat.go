package procstat

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StartTime is field 22 of /proc/pid/stat (start time in clock ticks), or
// "" when the process does not exist.
func StartTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces; fields after it do not.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// Threads counts the threads of pid in state T (stopped by a signal; t is
// stopped under a tracer) and the others.
func Threads(pid int) (stopped, other int, err error) {
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(stats) == 0 {
		return 0, 0, fmt.Errorf("process %d: no threads in /proc (%v)", pid, err)
	}
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the thread ended meanwhile
		}
		// The state follows the command name, which may itself hold ") ".
		i := strings.LastIndex(string(b), ") ")
		if i < 0 || i+2 >= len(b) {
			return 0, 0, fmt.Errorf("%s: unreadable stat %q", path, b)
		}
		if s := b[i+2]; s == 'T' || s == 't' {
			stopped++
		} else {
			other++
		}
	}
	return stopped, other, nil
}

// WaitStopped waits until every thread of process pid is stopped (want)
// or none is (!want), at most limit.
func WaitStopped(ctx context.Context, pid int, want bool, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		stopped, running, err := Threads(pid)
		if err != nil {
			return err
		}
		if (want && running == 0 && stopped > 0) || (!want && stopped == 0) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("process %d: %d threads stopped, %d not, after %s (want all %s)",
				pid, stopped, running, limit, map[bool]string{true: "stopped", false: "running"}[want])
		case <-time.After(10 * time.Millisecond):
		}
	}
}
