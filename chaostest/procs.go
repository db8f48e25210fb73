package chaostest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// survivorWait is how long the processes of a killed group have to be
// gone at the end of the run: SIGKILL is delivered at once, but a process
// leaves /proc only once the kernel has torn it down.
const survivorWait = 2 * time.Second

// procGroups is the process groups Command started in one run. Each is
// killed whole at a crash or at the end of the run; at its end no process
// of any of them, nor any process it had when it was killed, may be left.
type procGroups struct {
	mu     sync.Mutex
	groups []*procGroup
}

// procGroup is one start's program: its process group, and every process
// it had when killed (which includes any that left the group).
type procGroup struct {
	start  int
	pgid   int
	leader string // the leader's start time
	mu     sync.Mutex
	seen   map[proc]bool
}

// proc is one process; its start time tells it from a later one that got
// its pid.
type proc struct {
	pid     int
	started string
}

// add registers the group that pid leads; gs may be nil (an Env not made
// by a run), and then so is the group, whose kill still kills.
func (gs *procGroups) add(start, pid int) *procGroup {
	leader, _ := readProc(pid)
	g := &procGroup{start: start, pgid: pid, leader: leader.started, seen: map[proc]bool{}}
	if gs != nil {
		gs.mu.Lock()
		gs.groups = append(gs.groups, g)
		gs.mu.Unlock()
	}
	return g
}

// kill notes the group's processes and the leader's descendants, then
// SIGKILLs the group.
func (g *procGroup) kill() {
	ps := scanProcs()
	if g.reused(ps) {
		return
	}
	g.mu.Lock()
	for _, p := range ps.of(g.pgid) {
		g.seen[p.proc] = true
	}
	g.mu.Unlock()
	syscall.Kill(-g.pgid, syscall.SIGKILL)
}

// reused says whether g's number now leads another process's group: once
// every process of g is gone, a new process may get its number.
func (g *procGroup) reused(ps procTable) bool {
	p, ok := ps[g.pgid]
	return ok && p.started != g.leader
}

// survivors waits up to survivorWait for every process of every group to
// be gone; each one left is an error naming it, and is killed.
func (gs *procGroups) survivors() error {
	gs.mu.Lock()
	groups := gs.groups
	gs.mu.Unlock()
	type survivor struct {
		procEntry
		start int
	}
	var left map[proc]survivor
	for end := time.Now().Add(survivorWait); ; time.Sleep(50 * time.Millisecond) {
		left = map[proc]survivor{}
		ps := scanProcs()
		for _, g := range groups {
			for _, p := range g.left(ps) {
				left[p.proc] = survivor{p, g.start}
			}
		}
		if len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	var errs []error
	for _, p := range left {
		syscall.Kill(p.pid, syscall.SIGKILL)
		errs = append(errs, fmt.Errorf("process %d (%s), started by start %d of the code, outlived the run: it was not in the program's process group when the group was killed (killed now)",
			p.pid, p.cmdline, p.start))
	}
	return errors.Join(errs...)
}

// left is the live processes of g: in its group, or seen when it was
// killed.
func (g *procGroup) left(ps procTable) []procEntry {
	g.mu.Lock()
	defer g.mu.Unlock()
	inGroup := !g.reused(ps)
	var out []procEntry
	for _, p := range ps {
		if (inGroup && p.pgid == g.pgid) || g.seen[p.proc] {
			out = append(out, p)
		}
	}
	return out
}

// procTable is the live processes (zombies are dead, only not yet reaped).
type procTable map[int]procEntry

type procEntry struct {
	proc
	ppid, pgid int
	cmdline    string
}

// of is the processes of group pgid and every descendant of its leader.
func (t procTable) of(pgid int) []procEntry {
	children := map[int][]int{}
	for pid, p := range t {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	in := map[int]bool{}
	for todo := []int{pgid}; len(todo) > 0; {
		pid := todo[0]
		todo = append(todo[1:], children[pid]...)
		in[pid] = true
	}
	var out []procEntry
	for pid, p := range t {
		if in[pid] || p.pgid == pgid {
			out = append(out, p)
		}
	}
	return out
}

// scanProcs reads /proc.
func scanProcs() procTable {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	t := procTable{}
	for _, path := range stats {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			t[pid] = p
		}
	}
	return t
}

// readProc reads /proc/pid: fields 3 (state), 4 (ppid), 5 (pgrp) and 22
// (start time) of its stat, and its command line; false when it is gone
// or a zombie.
func readProc(pid int) (procEntry, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procEntry{}, false
	}
	s := string(b)
	// The command name (field 2) may hold spaces; fields after it do not.
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return procEntry{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return procEntry{proc: proc{pid: pid, started: f[19]}, ppid: ppid, pgid: pgid,
		cmdline: strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " "))}, true
}
