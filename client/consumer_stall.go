package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/histories"
)

// A stall is the application of a group member stopping between two of its
// ops — a batch whose processing takes too long — while librdkafka's own
// threads go on heartbeating, so its session never lapses. What it overruns
// is max.poll.interval.ms, which librdkafka checks itself under both group
// protocols (under KIP-848 too, where the session and heartbeats are the
// broker's, it stays a client setting): once the interval passes without a
// Poll, librdkafka leaves the group, queues a MAX_POLL_EXCEEDED error
// ("Application maximum poll interval exceeded") for the next Poll, revokes
// the assignment as lost (there, or — seen once under KIP-848 on a loaded
// machine — a Poll or more later), and rejoins only once the application
// polls again. A commit the member makes on waking, before that Poll,
// carries its old membership, and is recorded as Kafka answers it (see
// commit: a broker's rejection is info, read back).
//
// The stall is held where no op is open: after a poll op completed
// (processed), before its commit op when the strategy commits after
// processing, otherwise before the next poll op. Nothing is left
// un-completed in the history while it lasts.

// Where a stall is held (Stall.At).
const (
	StallBeforeCommit = "before-commit" // a poll processed, its commit op not yet begun
	StallBetweenPolls = "between-polls"
)

// librdkafkaMaxPollInterval is librdkafka's max.poll.interval.ms default.
const librdkafkaMaxPollInterval = 300 * time.Second

// maxPollExtra is the Extra field of a poll op in which librdkafka reported
// MAX_POLL_EXCEEDED: its error text. The member had left its group; the
// op's rebalance, or a later op's, shows the assignment it lost and the one
// it rejoined to.
const maxPollExtra = "max-poll-exceeded"

// Stall is one stall requested of a consumer (Consumer.Stall): held once
// the worker reaches a point between its ops (Held), until Resume or the
// end of the worker's context.
type Stall struct {
	c       *Consumer
	held    chan struct{} // closed once the worker is blocked
	release chan struct{} // closed by Resume
	woke    chan struct{} // closed once the first poll op after it completed

	mu        sync.Mutex
	state     stallState
	at        string
	heldAt    time.Time
	resumedAt time.Time
	waking    Waking
}

type stallState int

const (
	stallRequested stallState = iota
	stallHeld
	stallCancelled
)

// Waking is what a stalled consumer saw once it went on.
type Waking struct {
	Stalled         time.Duration `json:"stalled"`           // held to resumed
	MaxPollInterval time.Duration `json:"max-poll-interval"` // the consumer's, or librdkafka's default
	// Evicted: the first poll op after the stall saw MAX_POLL_EXCEEDED,
	// librdkafka had left the group; Error is its text.
	Evicted bool   `json:"evicted"`
	Error   string `json:"error,omitempty"`
	// Rebalance is what that poll op saw move (nil: nothing).
	Rebalance *histories.Rebalance `json:"rebalance,omitempty"`
	// Commit is the commit op made on waking, before that poll, as
	// "type" or "type: error" ("" when none was made).
	Commit string `json:"commit,omitempty"`
}

// ErrStallPending is a stall asked of a consumer that has one requested
// or held already.
var ErrStallPending = errors.New("consumer: a stall is already requested")

// Stall asks the consumer to stop between its next two ops until Resume.
// Only a group member can overrun max.poll.interval.ms.
func (c *Consumer) Stall() (*Stall, error) {
	switch {
	case c.opts.Config.Group == "":
		return nil, errors.New("consumer: a stall needs a group member (this consumer assigns)")
	case c.ended.Load():
		return nil, ErrCrashed
	}
	s := &Stall{c: c, held: make(chan struct{}), release: make(chan struct{}), woke: make(chan struct{})}
	if !c.stallReq.CompareAndSwap(nil, s) {
		return nil, ErrStallPending
	}
	return s, nil
}

// Process is the stalled consumer's process id.
func (s *Stall) Process() int64 { return s.c.Process() }

// MaxPollInterval is the stalled consumer's max.poll.interval.ms.
func (s *Stall) MaxPollInterval() time.Duration {
	if d := s.c.opts.Config.MaxPollInterval; d > 0 {
		return d
	}
	return librdkafkaMaxPollInterval
}

// At is where the stall is held ("" before it is).
func (s *Stall) At() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.at
}

// Cancel withdraws a stall not yet held and reports whether it did; a
// stall already held is the caller's to Resume.
func (s *Stall) Cancel() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != stallRequested {
		return s.state == stallCancelled
	}
	s.state = stallCancelled
	s.c.stallReq.CompareAndSwap(s, nil)
	return true
}

// Resume lets the worker go on; safe to call more than once.
func (s *Stall) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

// Ended reports whether the stalled consumer has ended.
func (s *Stall) Ended() bool { return s.c.Ended() }

// Waking is what the consumer saw on waking, complete once Woke is closed.
func (s *Stall) Waking() Waking {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waking
}

// StallReport is a stall's account, for a fault's detail: where it held
// the consumer and, once over, what the consumer saw.
type StallReport struct {
	Process           int64   `json:"process"`
	At                string  `json:"held"`
	MaxPollIntervalMs int64   `json:"max-poll-interval-ms"`
	Waking            *Waking `json:"waking,omitempty"`
	Ended             bool    `json:"ended,omitempty"` // the consumer ended before its next poll
}

// Report is the stall's account so far.
func (s *Stall) Report() StallReport {
	return StallReport{Process: s.Process(), At: s.At(), MaxPollIntervalMs: s.MaxPollInterval().Milliseconds()}
}

// WaitHeld waits up to bound (or ctx) for the stall to be held; one not
// held by then is withdrawn, or, held just then, kept.
func (s *Stall) WaitHeld(ctx context.Context, bound time.Duration) error {
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-s.held:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	if s.Cancel() {
		return fmt.Errorf("consumer %d reached no point between its ops within %v", s.Process(), bound)
	}
	return nil
}

// Wake resumes the stall and waits up to bound for the consumer's first
// poll op after it: the stall's whole account. Ended is set in it when the
// consumer ended first (a crash, a clean close); an error when it neither
// ended nor polled within bound.
func (s *Stall) Wake(bound time.Duration) (StallReport, error) {
	s.Resume()
	w, ended, err := s.waitWoke(bound)
	r := s.Report()
	r.Ended = ended
	if err == nil && !ended {
		r.Waking = &w
	}
	return r, err
}

// waitWoke waits up to bound for the first poll op after the stall and
// returns what the consumer saw; ended is true when it ended first, with
// nothing seen.
func (s *Stall) waitWoke(bound time.Duration) (w Waking, ended bool, err error) {
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.woke:
			return s.Waking(), false, nil
		case <-tick.C:
			if s.Ended() {
				return Waking{}, true, nil
			}
		case <-deadline.C:
			return Waking{}, false, fmt.Errorf("consumer %d completed no poll within %v of its resume", s.Process(), bound)
		}
	}
}

// hold marks the stall held at point at, unless it was cancelled.
func (s *Stall) hold(at string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != stallRequested {
		return false
	}
	s.state, s.at, s.heldAt = stallHeld, at, time.Now()
	close(s.held)
	return true
}

func (s *Stall) resumed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resumedAt = time.Now()
	s.waking.Stalled = s.resumedAt.Sub(s.heldAt)
	s.waking.MaxPollInterval = s.MaxPollInterval()
}

// stallGate blocks the worker at point at while a stall requested of it
// lasts: until Resume, or the worker's ctx ends (the run is over). No op
// is open here.
func (c *Consumer) stallGate(ctx context.Context, at string) {
	s := c.stallReq.Load()
	if s == nil || c.ended.Load() || !s.hold(at) {
		return
	}
	c.stallReq.CompareAndSwap(s, nil)
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	s.resumed()
	c.waking = s
}

// noteWakingCommit notes, on a stall just resumed, the commit op made on waking.
func (c *Consumer) noteWakingCommit(op *histories.Op) {
	if c.waking == nil {
		return
	}
	c.waking.mu.Lock()
	defer c.waking.mu.Unlock()
	if c.waking.waking.Commit == "" {
		c.waking.waking.Commit = string(op.Type)
		if op.Error != "" {
			c.waking.waking.Commit += ": " + op.Error
		}
	}
}

// takeWaking hands a resumed stall to the poll op about to begin, which
// reports to it (notePoll).
func (c *Consumer) takeWaking() {
	c.wakingPoll, c.waking = c.waking, nil
}

// noteMaxPoll keeps librdkafka's MAX_POLL_EXCEEDED for the poll op it came
// in.
func (c *Consumer) noteMaxPoll(e kafka.Error) {
	if e.Code() == kafka.ErrMaxPollExceeded {
		c.maxPoll = e
	}
}

// notePoll adds what the poll op op saw of an eviction to it and to the
// stall it is the first poll after.
func (c *Consumer) notePoll(op *histories.Op) {
	if c.maxPoll != nil {
		msg, _ := json.Marshal(c.maxPoll.Error())
		SetExtra(op, maxPollExtra, msg)
	}
	if s := c.wakingPoll; s != nil {
		s.mu.Lock()
		s.waking.Evicted = c.maxPoll != nil
		if c.maxPoll != nil {
			s.waking.Error = c.maxPoll.Error()
		}
		s.waking.Rebalance = op.Rebalance
		s.mu.Unlock()
		close(s.woke)
	}
	c.maxPoll, c.wakingPoll = nil, nil
}
