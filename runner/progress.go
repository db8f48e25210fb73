package runner

import (
	"fmt"
	"io"
	"time"
)

// progress reports a running run: on a terminal one line rewritten in
// place every half second; elsewhere (CI, a log file) one line every 10s.
// Its ticks and clock are fields so that a test can drive it without
// racing a real ticker.
type progress struct {
	out  io.Writer
	tty  bool
	m    *meter
	sc   *schedule
	t0   time.Time
	lim  time.Duration
	now  func() time.Time // the clock the elapsed time is read from
	stop chan struct{}
	done chan struct{}
}

func newProgress(out io.Writer, tty bool, m *meter, sc *schedule, t0 time.Time, limit time.Duration) *progress {
	return &progress{out: out, tty: tty, m: m, sc: sc, t0: t0, lim: limit, now: time.Now,
		stop: make(chan struct{}), done: make(chan struct{})}
}

func startProgress(out io.Writer, tty bool, m *meter, sc *schedule, t0 time.Time, limit time.Duration) *progress {
	p := newProgress(out, tty, m, sc, t0, limit)
	if out == nil {
		close(p.done)
		return p
	}
	every := 10 * time.Second
	if tty {
		every = 500 * time.Millisecond
	}
	t := time.NewTicker(every)
	go func() {
		defer t.Stop()
		p.loop(t.C)
	}()
	return p
}

// loop writes a line on each tick until end; a terminal's last line is
// ended, so that what follows starts on a line of its own.
func (p *progress) loop(ticks <-chan time.Time) {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			if p.tty {
				fmt.Fprintf(p.out, "\r%s\n", p.line())
			}
			return
		case <-ticks:
			if p.tty {
				fmt.Fprintf(p.out, "\r%s\033[K", p.line())
			} else {
				fmt.Fprintln(p.out, p.line())
			}
		}
	}
}

func (p *progress) line() string {
	el := p.now().Sub(p.t0).Truncate(100 * time.Millisecond)
	return fmt.Sprintf("kafkachaos: %s/%s  ops %d  ok %d  errors %d  crashes %d  active faults %d",
		el, p.lim, p.m.ops.Load(), p.m.okOps.Load(), p.m.errors.Load(), p.m.crashes.Load(), p.sc.active.Load())
}

// end stops the reports; safe to call more than once.
func (p *progress) end() {
	select {
	case <-p.stop:
	default:
		if p.out != nil {
			close(p.stop)
		}
	}
	<-p.done
}
