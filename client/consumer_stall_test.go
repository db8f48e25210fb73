package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// stallConsumer is a group member on closedPort: its polls complete empty
// after their wait, which is all a stall's gate needs.
func stallConsumer(t *testing.T, group string) (*Consumer, *MemRecorder) {
	t.Helper()
	rec := NewMemRecorder()
	cfg := ConsumerConfig{Group: group, Commit: CommitAfterProcessing, Extra: map[string]any{"log_level": 0}}
	if group == "" {
		cfg.Commit = CommitNone
	}
	c, err := NewConsumer(ConsumerOptions{Bootstrap: closedPort, Keys: oneKey(t), Recorder: rec, Process: 3,
		Config: cfg, callTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.closeWithin(time.Second) })
	return c, rec
}

// A stall is for group members, one at a time, and one withdrawn before it
// held leaves the consumer free for the next.
func TestStallRequests(t *testing.T) {
	assign, _ := stallConsumer(t, "")
	if _, err := assign.Stall(); err == nil {
		t.Error("an assigning consumer took a stall: it has no max.poll.interval.ms to overrun")
	}
	c, _ := stallConsumer(t, "g")
	s, err := c.Stall()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stall(); !errors.Is(err, ErrStallPending) {
		t.Errorf("a second stall: %v, want ErrStallPending", err)
	}
	if !s.Cancel() {
		t.Error("a stall not yet held could not be withdrawn")
	}
	if _, err := c.Stall(); err != nil {
		t.Errorf("a stall after a withdrawn one: %v", err)
	}
}

// A held stall blocks the worker between ops, with no op open, until
// Resume; the first poll after it reports to it and the consumer goes on.
func TestStallHoldsBetweenOps(t *testing.T) {
	c, rec := stallConsumer(t, "g")
	s, err := c.Stall()
	if err != nil {
		t.Fatal(err)
	}
	polled := make(chan error, 1)
	go func() { polled <- c.Poll(context.Background(), 10, 50*time.Millisecond) }()
	if err := s.WaitHeld(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if s.Cancel() || s.At() != StallBetweenPolls {
		t.Errorf("held stall: withdrawn or held at %q, want kept, %s", s.At(), StallBetweenPolls)
	}
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-polled:
		t.Fatalf("Poll returned during the stall: %v", err)
	default:
	}
	if ops := rec.Ops(); len(ops) == 0 || ops[len(ops)-1].Type == histories.Invoke {
		t.Errorf("an op is open during the stall: %+v", ops)
	}
	s.Resume()
	if err := <-polled; err != nil {
		t.Fatalf("Poll after the stall: %v", err)
	}
	if err := c.Poll(context.Background(), 10, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	w, ended, err := s.waitWoke(time.Second)
	if err != nil || ended {
		t.Fatalf("the first poll after the stall did not report to it: ended %t, %v", ended, err)
	}
	if w.Stalled < 200*time.Millisecond || w.Evicted || w.MaxPollInterval != librdkafkaMaxPollInterval {
		t.Errorf("waking %+v: want stalled >= 200ms, not evicted, librdkafka's default interval", w)
	}
}
