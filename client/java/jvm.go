package java

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/internal/ownedproc"
)

// jvm is one worker JVM: its process, its pipes, its log forwarding.
type jvm struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  *bufio.Scanner // stdout, past the ready line
	logged chan struct{}  // closed when stderr has been read to its end
	// started is how long the JVM took to make its client.
	started time.Duration

	writeMu sync.Mutex // one request line at a time

	pauseMu  sync.Mutex
	pausedAt time.Time     // when the pause under way began; zero when none is
	paused   time.Duration // the ended pauses' total
}

// startJVM runs the worker with args (its role's, then the client's
// configs) and waits for its ready line; role names it in errors, worker
// in its log lines.
func startJVM(tc Toolchain, args []string, logs *client.Logs, role, worker string) (*jvm, error) {
	all := []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.showThreadName=false",
		"-cp", tc.Classpath, mainClass}
	all = append(append(all, ownedproc.Args()...), args...)
	j := &jvm{cmd: exec.Command(tc.Java, all...), logged: make(chan struct{})}
	// Should the harness die without a Close, the JVM dies with it.
	j.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var err error
	if j.stdin, err = j.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("java %s: %w", role, err)
	}
	stdout, err := j.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("java %s: %w", role, err)
	}
	stderr, err := j.cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("java %s: %w", role, err)
	}
	began := time.Now()
	if err := j.cmd.Start(); err != nil {
		return nil, fmt.Errorf("java %s: starting %s: %w", role, tc.Java, err)
	}
	go j.logs(stderr, logs, worker)
	j.lines = bufio.NewScanner(stdout)
	j.lines.Buffer(make([]byte, 64<<10), 64<<20) // a poll's answer is one line
	ready := make(chan error, 1)
	go func() { ready <- awaitReady(j.lines, role) }()
	t := time.NewTimer(startBound)
	defer t.Stop()
	select {
	case err = <-ready:
	case <-t.C:
		err = fmt.Errorf("its %s was not made within %v", role, startBound)
	}
	if err != nil {
		j.cmd.Process.Kill()
		j.cmd.Wait()
		return nil, fmt.Errorf("java %s (kafka-clients %s): %w", role, tc.Version, err)
	}
	j.started = time.Since(began)
	return j, nil
}

// awaitReady reads the JVM's first line: ready, or why its client could
// not be made.
func awaitReady(lines *bufio.Scanner, role string) error {
	if !lines.Scan() {
		return fmt.Errorf("the JVM exited before its %s was made (its log says why): %v", role, lines.Err())
	}
	var a struct {
		Ready   bool   `json:"ready"`
		Fatal   string `json:"fatal"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(lines.Bytes(), &a); err != nil {
		return fmt.Errorf("unreadable first line %q: %w", lines.Text(), err)
	}
	if !a.Ready {
		return fmt.Errorf("%s: %s", a.Fatal, a.Message)
	}
	return nil
}

// write sends one request line.
func (j *jvm) write(req any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	j.writeMu.Lock()
	defer j.writeMu.Unlock()
	_, err = j.stdin.Write(append(b, '\n'))
	return err
}

// answered is an answer of a JVM that serves one request at a time,
// carrying its request's id.
type answered interface{ answerID() int64 }

// ask writes req, whose id is id, to j and waits for its answer among
// replies, at most bound and a client.HangGrace: past that, a
// *client.HangError for call op; errJVMGone, with how the JVM ended
// (*exit, set before exited closes), when it exits first.
func ask[A answered](j *jvm, req any, id int64, op string, bound time.Duration, replies <-chan A, exited <-chan struct{}, exit *error) (A, error) {
	var none A
	// A write the JVM's death cuts short is seen as its exit below.
	j.write(req)
	grace := client.HangGrace(bound)
	t := time.NewTimer(bound + grace)
	defer t.Stop()
	began, stopped := time.Now(), j.stopped()
	for {
		select {
		case a := <-replies:
			if a.answerID() == id {
				return a, nil
			}
		case <-exited:
			return none, fmt.Errorf("%w (%v)", errJVMGone, *exit)
		case <-t.C:
			// A stopped JVM cannot answer: its stopped time is not a hang.
			if left := bound + grace + j.stopped() - stopped - time.Since(began); left > 0 {
				t.Reset(left)
				continue
			}
			return none, &client.HangError{Call: op, Timeout: bound, Grace: grace, Blocked: time.Since(began)}
		}
	}
}

// kill SIGKILLs the JVM (by pidfd: never a reused pid): no flush, no close.
func (j *jvm) kill() { j.cmd.Process.Signal(syscall.SIGKILL) }

// reap waits for the JVM's exit once its stdout has ended, and returns
// how it ended.
func (j *jvm) reap() error {
	<-j.logged // Wait closes stderr: read it to its end first
	return j.cmd.Wait()
}

// close asks the JVM to close its client within wait, closes its stdin,
// and waits for ended (closed once the JVM is reaped) up to closeGrace
// past wait; a JVM still running then is killed, and the error says so.
func (j *jvm) close(wait time.Duration, ended <-chan struct{}, role string) error {
	j.write(closeRequest{Op: "close", TimeoutMS: wait.Milliseconds()})
	j.stdin.Close()
	t := time.NewTimer(wait + closeGrace)
	defer t.Stop()
	select {
	case <-ended:
		return nil
	case <-t.C:
		j.kill()
		<-ended
		return fmt.Errorf("java %s: its JVM did not exit within %v of the close: killed", role, wait+closeGrace)
	}
}

// logs forwards the JVM's stderr (slf4j-simple: "LEVEL logger - message")
// to the run's client log.
func (j *jvm) logs(stderr io.Reader, logs *client.Logs, worker string) {
	defer close(j.logged)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		logs.Log(logLine(worker, sc.Text()))
	}
}
