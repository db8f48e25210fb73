package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/kafkachaos/kafkachaos/internal/ownedproc"
	"github.com/kafkachaos/kafkachaos/internal/procstat"
)

// Sweep kills the worker processes, and any other process tagged by
// ownedproc (a Java client's JVM), whose owner is gone (a harness that
// crashed, or was killed, before its Stop: Pdeathsig misses a paused one,
// and a harness thread's exit may outlive its process's). It returns how
// many it killed. A run calls it before it starts its own.
func Sweep() int {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	killed := 0
	for _, path := range cmdlines {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue // ended meanwhile
		}
		owner, ok := ownerOf(b)
		if !ok || ownerAlive(owner) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	return killed
}

// ownerOf is the owner tag of a worker process's command line.
func ownerOf(cmdline []byte) (string, bool) {
	args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
	for i, a := range args {
		if string(a) == ownedproc.Arg && i+1 < len(args) {
			owner, ok := strings.CutPrefix(string(args[i+1]), "owner=")
			return owner, ok
		}
	}
	return "", false
}

// ownerAlive reports whether owner (pid:start) is a running process.
func ownerAlive(owner string) bool {
	pid, start, ok := strings.Cut(owner, ":")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(pid)
	return err == nil && start != "" && procstat.StartTime(n) == start
}

// Workers lists the pids of the running worker processes owned by this
// process: none once a Pool has stopped.
func Workers() []int {
	self := ownedproc.Tag(os.Getpid())
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []int
	for _, path := range cmdlines {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if owner, ok := ownerOf(b); ok && owner == self {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			out = append(out, pid)
		}
	}
	return out
}
