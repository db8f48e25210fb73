package proc

import (
	"encoding/json"
	"fmt"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// ledger is what the harness knows of one worker process's history: the
// ops it invoked and has not completed, and the processes it used, so that
// when it dies the history can say so (close).
type ledger struct {
	open  map[int64][]*histories.Op // by process: invoked, not completed
	group map[int64]string          // a process's consumer group
	ended map[int64]bool            // a process whose last op (crash, client-hang) is recorded
	seen  []int64                   // processes in the order first seen
}

func newLedger() *ledger {
	return &ledger{open: map[int64][]*histories.Op{}, group: map[int64]string{}, ended: map[int64]bool{}}
}

// note takes an op the worker recorded, reporting whether its process is
// new.
func (l *ledger) note(op *histories.Op) bool {
	p := op.Process
	_, known := l.group[p]
	if !known {
		l.seen = append(l.seen, p)
		l.group[p] = ""
	}
	if op.Group != "" {
		l.group[p] = op.Group
	}
	switch {
	case op.Type == histories.Invoke:
		l.open[p] = append(l.open[p], op)
	case len(l.open[p]) > 0:
		l.open[p] = l.open[p][1:]
	}
	if op.F == histories.FCrash || op.F == histories.FClientHang {
		l.ended[p] = true
	}
	return !known
}

// died records what a dead worker process leaves: each open op completed
// as info (it may or may not have taken effect: the process died in it),
// then a crash op for each process not ended, which never comes back. It
// returns the processes it ended.
func (l *ledger) died(rec client.Recorder, how string, pid int) []int64 {
	why := fmt.Sprintf("worker process %d %s: outcome unknown", pid, how)
	for _, p := range l.seen {
		for _, inv := range l.open[p] {
			op := &histories.Op{Process: p, Type: histories.Info, F: inv.F, Mops: inv.Mops, Keys: inv.Keys,
				Value: inv.Value, Group: inv.Group, Error: why}
			rec.Record(op)
		}
		delete(l.open, p)
	}
	value, _ := json.Marshal(map[string]any{"pid": pid, "how": how})
	var ended []int64
	for _, p := range l.seen {
		if l.ended[p] {
			continue
		}
		rec.Record(&histories.Op{Process: p, Type: histories.Info, F: histories.FCrash, Group: l.group[p], Value: value})
		l.ended[p] = true
		ended = append(ended, p)
	}
	return ended
}
