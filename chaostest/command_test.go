package chaostest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/kafkachaos/kafkachaos/chaostest"
)

// helperEnv marks the test binary started by Command as the code under
// test; its value is the directory where each start writes its pid.
const helperEnv = "CHAOSTEST_HELPER_COPIER"

// TestHelperCopier is the program Command runs in
// TestCommandIsKilledOnCrashAndStartedAgain: the test binary itself, as a
// copier reading its Env from the environment. Each start writes its pid
// and, first, notes any program of an earlier start still alive: a crash
// that left it running.
func TestHelperCopier(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("the code under test of TestCommandIsKilledOnCrashAndStartedAgain, run by it")
	}
	env, err := chaostest.EnvFromEnviron()
	if err != nil {
		t.Fatal(err)
	}
	self := pidOf{os.Getpid(), startTime(os.Getpid())}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("pid-%d", env.Start)), []byte(fmt.Sprintf("%d %s", self.pid, self.started)), 0o644); err != nil {
		t.Fatal(err)
	}
	for start := range env.Start {
		if p, ok := readPid(dir, start); ok && waitDead(p, time.Second) != nil {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("alive-%d-at-%d", start, env.Start)), nil, 0o644)
		}
	}
	// Static membership: each start takes over the membership of the one
	// it replaces. Without it, a start killed while its JoinGroup waited
	// stays in the embedded cluster's group for good (kfake re-arms a
	// member's session timer only when a response reaches it), holding
	// its partitions, and the code never catches up.
	static := kafka.ConfigMap{"group.instance.id": env.Group + "-code"}
	if err := copier(same, 0, static)(context.Background(), env); err != nil {
		t.Fatal(err)
	}
}

// A program behind a wrapper (a shell that starts it and waits, as a
// script or a build tool does) is the code under test as a function is:
// each crash kills the real program, not only the wrapper, each start is
// a new process, nothing outlives the run, and an at-least-once copier
// loses nothing.
func TestCommandIsKilledOnCrashAndStartedAgain(t *testing.T) {
	pids := t.TempDir()
	t.Setenv(helperEnv, pids)
	t.Cleanup(func() { killLeft(pids) })
	o := small(t)
	o.Duration = 4 * time.Second
	// each start is a process exec and a group join, slow on a loaded
	// machine: crashes a second apart give each start time to join, and the
	// drain ends as soon as the code has caught up
	o.Drain = 15 * time.Second
	o.Faults = []chaostest.Fault{chaostest.CrashService(time.Second, 2*time.Second, time.Second)}
	wrapper := chaostest.Command("sh", "-c", `"$0" -test.run='^TestHelperCopier$' & wait`, os.Args[0])
	v, err := chaostest.Run(t.Context(), chaostest.AtLeastOnce, wrapper, o)
	if err != nil || !v.Held || len(v.Hangs)+len(v.Notes)+len(v.Unconsumed) != 0 {
		t.Errorf("%v, %v", v, err)
	}
	ran := 0
	for start := range 4 { // the first start and three crashes
		p, ok := readPid(pids, start)
		if !ok {
			// on a loaded machine a crash can land before the program
			// wrote its pid: its group was killed all the same
			t.Logf("start %d was crashed before the program wrote its pid", start)
			continue
		}
		ran++
		if err := waitDead(p, 0); err != nil {
			t.Errorf("start %d: %v after the run", start, err)
		}
	}
	if ran < 2 {
		t.Errorf("the program ran in %d of 4 starts, want at least 2 to see a crash and a start again", ran)
	}
	alive, _ := filepath.Glob(filepath.Join(pids, "alive-*"))
	for _, a := range alive {
		t.Errorf("a crash left the program running: %s (the start of the code that found it, and the one it found)", filepath.Base(a))
	}
}

// A process the program started that left its process group (setsid, a
// daemon) is not killed with it: the run names it, by pid and command
// line, as an error, and kills it then.
func TestCommandSurvivorIsAnError(t *testing.T) {
	o := small(t)
	o.Records, o.Drain = 4, 300*time.Millisecond
	_, err := chaostest.Run(t.Context(), chaostest.AtLeastOnce, chaostest.Command("sh", "-c", "setsid sleep 60 & wait"), o)
	m := regexp.MustCompile(`process (\d+) \(sleep 60\)[^;]*outlived the run`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil {
		t.Fatalf("err %v, want one naming the sleep that outlived the run", err)
	}
	pid, _ := strconv.Atoi(m[1])
	if err := waitDead(pidOf{pid, startTime(pid)}, time.Second); err != nil {
		t.Errorf("the survivor named: %v", err)
	}
}

// pidOf is a process, its start time telling it from a later one with
// its pid.
type pidOf struct {
	pid     int
	started string
}

func readPid(dir string, start int) (pidOf, bool) {
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("pid-%d", start)))
	if err != nil {
		return pidOf{}, false
	}
	var p pidOf
	_, err = fmt.Sscan(string(b), &p.pid, &p.started)
	return p, err == nil
}

// stat is the state and start time of pid ("" when it does not exist).
func stat(pid int) (state, started string) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0], f[19]
}

func startTime(pid int) string { _, s := stat(pid); return s }

// waitDead waits up to d for p to be gone (or a zombie: dead, not yet
// reaped).
func waitDead(p pidOf, d time.Duration) error {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		state, started := stat(p.pid)
		if state == "" || started != p.started || state == "Z" || state == "X" {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("process %d is alive (state %s)", p.pid, state)
		}
	}
}

// killLeft kills the programs a failed run left alive.
func killLeft(dir string) {
	for start := 0; ; start++ {
		p, ok := readPid(dir, start)
		if !ok {
			return
		}
		if startTime(p.pid) == p.started {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}
