package java

import (
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/procstat"
)

// silentProcess is a jvm around a process that never answers.
func silentProcess(t *testing.T) *jvm {
	t.Helper()
	j := &jvm{cmd: exec.Command("sleep", "60")}
	var err error
	if j.stdin, err = j.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := j.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.kill(); j.cmd.Wait() })
	return j
}

type testAnswer struct{ ID int64 }

func (a testAnswer) answerID() int64 { return a.ID }

// A request's bound leaves out the time its JVM was stopped: a request
// bounded at 300 ms (and a 2 s grace) to a process paused for 4 s of it
// is a hang only about 6.3 s after it was asked, and the pause held every
// thread in state T.
func TestPausedTimeIsNotAHang(t *testing.T) {
	j := silentProcess(t)
	exited, exit := make(chan struct{}), error(nil)
	const bound, pause = 300 * time.Millisecond, 4 * time.Second
	began := time.Now()
	hung := make(chan error, 1)
	go func() {
		_, err := ask(j, map[string]int{"id": 1}, 1, "poll", bound, make(chan testAnswer), exited, &exit)
		hung <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := j.Pause(t.Context()); err != nil {
		t.Fatal(err)
	}
	if stopped, running, err := procstat.Threads(j.PID()); err != nil || running != 0 || stopped == 0 {
		t.Fatalf("paused: %d threads stopped, %d running (%v); want all stopped", stopped, running, err)
	}
	if err := j.Pause(t.Context()); !errors.Is(err, errPaused) {
		t.Fatalf("second pause: %v, want errPaused", err)
	}
	time.Sleep(pause)
	if err := j.Resume(t.Context()); err != nil {
		t.Fatal(err)
	}
	if j.Paused() {
		t.Fatal("Paused after Resume")
	}
	err := <-hung
	var h *client.HangError
	took := time.Since(began)
	if !errors.As(err, &h) {
		t.Fatalf("ask: %v, want a hang", err)
	}
	if want := bound + client.HangGrace(bound) + pause; took < want {
		t.Fatalf("hang after %v, want at least %v: the pause was counted against the bound", took, want)
	}
	t.Logf("hang after %v", took)
}

// Resuming a JVM killed while paused needs nothing.
func TestResumeOfAKilledJVM(t *testing.T) {
	j := silentProcess(t)
	if err := j.Pause(t.Context()); err != nil {
		t.Fatal(err)
	}
	j.kill()
	j.cmd.Wait()
	if err := j.Resume(t.Context()); err != nil {
		t.Fatalf("resume of a killed JVM: %v", err)
	}
}

// A Java consumer paused mid-poll for longer than the poll's bound and
// grace answers that poll once resumed: ok, not a client hang.
func TestJavaConsumerPausedMidPollGoesOn(t *testing.T) {
	if testing.Short() {
		t.Skip("a 17 s pause")
	}
	e := startCluster(t)
	produce(t, e, 10)
	rec := client.NewMemRecorder()
	c := newTestConsumer(t, e, rec, 1, client.ConsumerConfig{})
	polled := make(chan error, 1)
	go func() { polled <- c.Poll(t.Context(), 100, 2*time.Second) }()
	time.Sleep(50 * time.Millisecond)
	if err := c.Pause(t.Context()); err != nil {
		t.Fatal(err)
	}
	// past the poll's bound (wait + quickBound) and its grace
	pause := 2*time.Second + quickBound + client.HangGrace(2*time.Second+quickBound)
	time.Sleep(pause)
	if err := c.Resume(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := <-polled; err != nil {
		t.Fatalf("poll across a %v pause: %v", pause, err)
	}
	ops := rec.Ops()
	clienttest.CheckPaired(t, ops)
	for _, o := range ops {
		if o.F == histories.FClientHang || (o.Type != histories.Invoke && o.Type != histories.OK) {
			t.Errorf("op %+v: want every op ok across a pause", o)
		}
	}
}
