package proc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/workers"
)

// A stall of a consumer's worker process is its consumer's own stall
// (client.Consumer.Stall), asked for over the wire: the harness sends a
// stall, later a resume, and the worker answers each with a stalled line
// once the consumer is held, then once it has polled after the resume.
// Unlike Pause, the process and librdkafka's threads run on.

// stallReq asks the worker process to stall its consumer: held within
// Hold, and once resumed polling within Wake.
type stallReq struct {
	Hold time.Duration `json:"hold"`
	Wake time.Duration `json:"wake"`
}

// stallAnswer answers a stall or a resume (Ask: its number).
type stallAnswer struct {
	Ask    int64              `json:"ask"`
	Report client.StallReport `json:"report"`
	Error  string             `json:"error,omitempty"`
}

// noStallHeld answers a resume when no stall is held: the stall it was to
// end was never held.
const noStallHeld = "no stall is held to resume"

// answerMargin is how much longer the harness waits for an answer than
// the worker process takes to give one: the wire's own delay.
const answerMargin = 2 * time.Second

// Stalled is a worker process whose consumer a Stall holds.
type Stalled struct {
	ch   *child
	wake time.Duration
	// Report is where the consumer is held.
	Report client.StallReport
}

// Stall holds the consumer of a consumer's worker process between two of
// its ops, and returns once it is held (within hold); Resume lets it go
// on. workers.ErrNothingToCrash when no consumer's worker process runs
// unpaused. A stall the harness gives up waiting for (ctx, or no answer
// in time) is resumed before Stall returns: the worker process may hold
// it yet, with no fault in the history to say so.
func (p *Pool) Stall(ctx context.Context, hold, wake time.Duration) (*Stalled, error) {
	ch := p.pick([]string{"consumer"}, func(c *child) bool { return !c.isPaused() })
	if ch == nil {
		return nil, workers.ErrNothingToCrash
	}
	ans, err := ch.ask(ctx, message{Stall: &stallReq{Hold: hold, Wake: wake}}, hold+answerMargin)
	if errors.Is(err, errGaveUp) {
		p.release(ch, hold+wake+answerMargin)
	}
	if err != nil {
		return nil, err
	}
	return &Stalled{ch: ch, wake: wake, Report: ans.Report}, nil
}

// release resumes a stall the harness gave up on, waiting up to bound:
// the worker process answers the stall first, then the resume. A worker
// process told to stop, or gone, holds nothing any more. One that does not
// answer is a harness error: its consumer may be held.
func (p *Pool) release(ch *child, bound time.Duration) {
	ans, err := ch.ask(ch.stopping, message{Resume: true}, bound)
	if err == nil || ans.Error == noStallHeld || errors.Is(err, errExited) || ch.stopping.Err() != nil {
		return
	}
	p.fail(fmt.Errorf("a stall given up on: resuming it: %w", err))
}

// Resume lets the consumer go on and returns the stall's whole account
// once it has polled; a worker process that exited meanwhile (killed,
// churned) ended its consumer.
func (st *Stalled) Resume() (client.StallReport, error) {
	ans, err := st.ch.ask(context.Background(), message{Resume: true}, st.wake+answerMargin)
	if errors.Is(err, errExited) {
		r := st.Report
		r.Ended = true
		return r, nil
	}
	return ans.Report, err
}

var (
	errExited = errors.New("the worker process exited")
	errGaveUp = errors.New("the harness gave up waiting for the answer")
)

// ask sends a stall or a resume and waits up to bound for its answer; an
// answer to an earlier ask that gave up waiting is passed over.
func (ch *child) ask(ctx context.Context, m message, bound time.Duration) (stallAnswer, error) {
	ch.askMu.Lock()
	defer ch.askMu.Unlock()
	ch.asks++
	m.Ask = ch.asks
	if err := ch.in.send(m); err != nil {
		return stallAnswer{}, err
	}
	t := time.NewTimer(bound)
	defer t.Stop()
	for {
		select {
		case ans := <-ch.stalled:
			switch {
			case ans.Ask != m.Ask:
				continue
			case ans.Error != "":
				return ans, fmt.Errorf("worker process %d (%s): %s", ch.pid, ch.at, ans.Error)
			}
			return ans, nil
		case <-ch.exited:
			return stallAnswer{}, fmt.Errorf("worker process %d (%s): %w", ch.pid, ch.at, errExited)
		case <-t.C:
			return stallAnswer{}, fmt.Errorf("worker process %d (%s): %w: none within %v", ch.pid, ch.at, errGaveUp, bound)
		case <-ctx.Done():
			return stallAnswer{}, fmt.Errorf("worker process %d (%s): %w: %w", ch.pid, ch.at, errGaveUp, ctx.Err())
		}
	}
}

// serveStalls runs the harness's stalls and resumes on the worker
// process's consumer, one at a time, until ctx ends (which releases a
// stall still held: see client.Consumer.Stall).
func (w *worker) serveStalls(ctx context.Context, wl *workers.Workload) {
	var held *client.Stall
	var wake time.Duration
	for {
		var m message
		select {
		case <-ctx.Done():
			return
		case m = <-w.stalls:
		}
		var ans stallAnswer
		switch {
		case m.Stall != nil:
			held, ans = holdConsumer(ctx, wl, *m.Stall)
			wake = m.Stall.Wake
		case held == nil:
			ans.Error = noStallHeld
		default:
			r, err := held.Wake(wake)
			ans.Report, held = r, nil
			if err != nil {
				ans.Error = err.Error()
			}
		}
		ans.Ask = m.Ask
		w.out.send(message{Stalled: &ans})
	}
}

// holdConsumer stalls the workload's consumer; nil and the error's text
// when it could not be held.
func holdConsumer(ctx context.Context, wl *workers.Workload, req stallReq) (*client.Stall, stallAnswer) {
	slots := wl.Consumers()
	if len(slots) != 1 {
		return nil, stallAnswer{Error: fmt.Sprintf("%d consumers in this worker process, want 1", len(slots))}
	}
	s, err := slots[0].Stall()
	if err == nil {
		err = s.WaitHeld(ctx, req.Hold)
	}
	if err != nil {
		return nil, stallAnswer{Error: err.Error()}
	}
	return s, stallAnswer{Report: s.Report()}
}
