package groundtruth

import (
	"cmp"
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// ReadUncommitted appends to a simulated history, per key the final reader
// assigned, a fresh read_uncommitted consumer whose ok poll returns every
// record of the key's log in offset order: the records the final reads
// returned and the records of aborted transactions (at the offsets their
// failed completions carry). Transaction markers are not records, so they
// are returned by no consumer.
//
// It returns the new history and how many aborted records the polls
// returned: each is an aborted read (G1a), and nothing else in the history
// changes meaning (read_committed consumers that passed over those records
// skipped nothing).
func ReadUncommitted(ops []histories.Op) ([]histories.Op, int, error) {
	f, err := learn(ops)
	if err != nil {
		return nil, 0, err
	}
	logs := map[int64][]histories.Record{}
	aborted := 0
	for i := range ops {
		op := &ops[i]
		for _, m := range op.Mops {
			switch {
			case op.Type == histories.OK && op.Process == f.finalProc && m.F == histories.MPoll:
				for k, rs := range m.Records {
					logs[k] = append(logs[k], rs...)
				}
			case op.Type == histories.Fail && op.F == histories.FTxn && m.F == histories.MSend && m.Offset >= 0:
				logs[m.Key] = append(logs[m.Key], histories.Record{Offset: m.Offset, Value: m.Value})
				aborted++
			}
		}
	}
	a := &appender{ops: deepCopy(ops), next: f.maxProc}
	for _, k := range f.keys {
		recs := logs[k]
		if len(recs) == 0 {
			continue
		}
		slices.SortFunc(recs, func(x, y histories.Record) int { return cmp.Compare(x.Offset, y.Offset) })
		a.read("", k, recs...)
	}
	return a.ops, aborted, nil
}
