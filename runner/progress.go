package runner

import (
	"fmt"
	"io"
	"time"
)

// progress reports a running run: on a terminal one line rewritten in
// place every half second; elsewhere (CI, a log file) one line every 10s.
type progress struct {
	out  io.Writer
	tty  bool
	m    *meter
	sc   *schedule
	t0   time.Time
	lim  time.Duration
	stop chan struct{}
	done chan struct{}
}

func startProgress(out io.Writer, tty bool, m *meter, sc *schedule, t0 time.Time, limit time.Duration) *progress {
	p := &progress{out: out, tty: tty, m: m, sc: sc, t0: t0, lim: limit, stop: make(chan struct{}), done: make(chan struct{})}
	if out == nil {
		close(p.done)
		return p
	}
	every := 10 * time.Second
	if tty {
		every = 500 * time.Millisecond
	}
	go p.loop(every)
	return p
}

func (p *progress) loop(every time.Duration) {
	defer close(p.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			if p.tty {
				fmt.Fprintf(p.out, "\r%s\n", p.line())
			}
			return
		case <-t.C:
			if p.tty {
				fmt.Fprintf(p.out, "\r%s\033[K", p.line())
			} else {
				fmt.Fprintln(p.out, p.line())
			}
		}
	}
}

func (p *progress) line() string {
	el := time.Since(p.t0).Truncate(100 * time.Millisecond)
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
