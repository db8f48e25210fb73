package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// node is one combined broker+controller JVM.
type node struct {
	id       int32
	ns       string // network namespace; "" in loopback mode
	ip       string
	port     int // client and inter-broker listener
	ctrlPort int // KRaft controller listener
	// proxyPort is the listener the clients' proxy fronts, proxyAddr
	// that proxy's address ("" when the run has no proxies)
	proxyPort int
	proxyAddr string
	// replPort is the inter-broker listener a replication proxy at
	// replAddr fronts ("" when the brokers replicate directly)
	replPort int
	replAddr string
	dir      string
	// dirID is the directory id its metadata log is formatted with in a
	// dynamic quorum, initial that quorum's --initial-controllers (both
	// "" in a static quorum); see quorum.go
	dirID, initial string

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{} // closed when cmd has exited
	exit   error         // cmd's exit status, valid after done
	paused bool
}

// NodeID and ClientAddr make a node realbroker.Placed.
func (n *node) NodeID() int32 { return n.id }

func (n *node) ClientAddr() string { return n.addr() }

func (n *node) addr() string { return net.JoinHostPort(n.ip, strconv.Itoa(n.port)) }

func (n *node) logPath() string { return filepath.Join(n.dir, "broker.log") }

// formatLogPath holds the storage format step's command line and output.
func (n *node) formatLogPath() string { return filepath.Join(n.dir, "format.log") }

// outputs are the node's output files that exist: what a failed start
// points a person to.
func (n *node) outputs() []string {
	var paths []string
	for _, p := range []string{n.formatLogPath(), n.logPath()} {
		if _, err := os.Stat(p); err == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

// jvm is how a node's java process is launched.
type jvm struct {
	classpath string
	heap      string
	runID     string
	log4j     string // path of the logging config
	log4j1    bool   // a Kafka 3.x release: log4j 1 (reload4j), not log4j2
	flags     []string
	extraLog  io.Writer
	clockLib  string // libfaketime, preloaded into brokers when the run skews clocks
}

// args is the java command line; the -Dkafkachaos.run marker is how
// CleanLeftovers recognises JVMs of crashed runs.
func (j jvm) args(n *node, mainClass string, rest ...string) []string {
	a := []string{
		"-Xms" + j.heap, "-Xmx" + j.heap, "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError",
		// C1 only: on two shared cores C2 compilation at startup costs more
		// than it returns in a short run (start ~40s instead of ~60s under
		// load). Options.JVMFlags can undo it for throughput runs.
		"-XX:TieredStopAtLevel=1",
		"-Djava.awt.headless=true",
		"-Dkafkachaos.run=" + j.runID, "-Dkafkachaos.node=" + strconv.Itoa(int(n.id)),
		j.loggingFlag(),
		"-Dkafka.logs.dir=" + n.dir,
	}
	a = append(a, j.flags...) // last wins in HotSpot
	a = append(a, "-cp", j.classpath, mainClass)
	return append(a, rest...)
}

// loggingFlag points the JVM's logging at the provider's config.
func (j jvm) loggingFlag() string {
	if j.log4j1 {
		return "-Dlog4j.configuration=file:" + j.log4j
	}
	return "-Dlog4j2.configurationFile=" + j.log4j
}

// command wraps args in `ip netns exec` when the node has a namespace; ip
// execs java in place, so the process we signal is the JVM itself.
func (j jvm) command(n *node, args []string) *exec.Cmd {
	if n.ns == "" {
		return exec.Command("java", args...)
	}
	return exec.Command("ip", append([]string{"netns", "exec", n.ns, "java"}, args...)...)
}

// errRunning is start's error for a node whose JVM is alive.
var errRunning = errors.New("already running")

// start launches the broker, appending its output to broker.log.
func (n *node) start(j jvm) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.running() {
		return fmt.Errorf("node %d: %w", n.id, errRunning)
	}
	f, err := os.OpenFile(n.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	cmd := j.command(n, j.args(n, "kafka.Kafka", filepath.Join(n.dir, "server.properties")))
	fmt.Fprintf(f, "=== kafkachaos: starting node %d at %s: %s\n", n.id, time.Now().UTC().Format(time.RFC3339Nano), cmd)
	var out io.Writer = f
	if j.extraLog != nil {
		out = io.MultiWriter(f, j.extraLog)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if j.clockLib != "" {
		cmd.Env = clockEnv(j.clockLib, n.clockFile(j.runID))
	}
	// Own process group: a ^C to the test must not reach the brokers before
	// Stop has run; the death signal kills them if the test process dies
	// without running Stop at all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("node %d: starting java: %w", n.id, err)
	}
	done := make(chan struct{})
	n.cmd, n.done, n.paused, n.exit = cmd, done, false, nil
	go func() {
		err := cmd.Wait()
		f.Close()
		n.mu.Lock()
		n.exit = err
		n.mu.Unlock()
		close(done)
	}()
	return nil
}

// running reports whether the JVM is alive; callers hold n.mu.
func (n *node) running() bool {
	if n.done == nil {
		return false
	}
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

func (n *node) isUp() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.running() && !n.paused
}

// signal sends sig to the running JVM.
func (n *node) signal(sig syscall.Signal) error {
	_, err := n.signalPid(sig)
	return err
}

// signalPid sends sig to the running JVM and returns its pid.
func (n *node) signalPid(sig syscall.Signal) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.running() {
		return 0, fmt.Errorf("node %d is not running", n.id)
	}
	if err := n.cmd.Process.Signal(sig); err != nil {
		return 0, fmt.Errorf("node %d: %s: %w", n.id, sig, err)
	}
	switch sig {
	case syscall.SIGSTOP:
		n.paused = true
	case syscall.SIGCONT:
		n.paused = false
	}
	return n.cmd.Process.Pid, nil
}

// kill SIGKILLs the JVM and waits for it to be reaped; killing a node that
// is already down is not an error, so Stop can call it on every node.
func (n *node) kill(ctx context.Context) error {
	n.mu.Lock()
	done := n.done
	if !n.running() {
		n.mu.Unlock()
		return nil
	}
	err := n.cmd.Process.Signal(syscall.SIGKILL)
	n.mu.Unlock()
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("node %d: SIGKILL: %w", n.id, err)
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("node %d: waiting for the killed JVM: %w", n.id, ctx.Err())
	}
}

// exited returns a description of how the JVM ended, or "" while it runs.
func (n *node) exited() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.done == nil || n.running() {
		return ""
	}
	if n.exit == nil {
		return "exited with status 0"
	}
	return n.exit.Error()
}

// logTail returns the last lines of the node's broker.log.
func (n *node) logTail(lines int) string { return tail(n.logPath(), lines) }

// tail returns the last lines of the file at path, Java stack frames left
// out: a trace would push the exception's message out of a short tail.
func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	all := slices.DeleteFunc(strings.Split(strings.TrimRight(string(b), "\n"), "\n"), func(l string) bool {
		return strings.HasPrefix(l, "\tat ") || strings.HasPrefix(l, "\t... ")
	})
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// formatTimeout bounds the storage format step, a JVM that takes about a
// second on an idle machine and tens of seconds on two loaded cores.
const formatTimeout = 2 * time.Minute

// format writes the KRaft storage of the node (kafka.tools.StorageTool, the
// class behind kafka-storage.sh) with the run's cluster id. Its command
// line and output go to format.log, kept with the run: a start that fails
// here has no broker.log to explain it.
func (n *node) format(ctx context.Context, j jvm, clusterID string) error {
	ctx, cancel := context.WithTimeout(ctx, formatTimeout)
	defer cancel()
	f, err := os.Create(n.formatLogPath())
	if err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	defer f.Close()
	args := []string{"format", "--ignore-formatted", "-t", clusterID, "-c", filepath.Join(n.dir, "server.properties")}
	if n.initial != "" {
		args = append(args, "--initial-controllers", n.initial)
	}
	cmd := exec.CommandContext(ctx, "java", j.args(n, "kafka.tools.StorageTool", args...)...)
	fmt.Fprintf(f, "=== kafkachaos: formatting node %d at %s: %s\n", n.id, time.Now().UTC().Format(time.RFC3339Nano), cmd)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("node %d: formatting storage: %w (%s ends:)\n%s", n.id, err, n.formatLogPath(), tail(n.formatLogPath(), 10))
	}
	return nil
}
