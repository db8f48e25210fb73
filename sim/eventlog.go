package sim

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kafkachaos/kafkachaos/histories"
)

// EventLog is a run's canonical event log: per key, every completed client
// op's part in that key at its virtual time (values and offsets sent,
// records polled, offsets committed, keys a rebalance assigned or
// revoked), the nemesis's steps, and the key's final log with each
// record's producer (numbered by first appearance, since kfake draws ids
// at random) and epoch. Events of one instant are sorted, so the order in
// which goroutines recorded them does not count; everything else does.
// Two runs of one seed replay exactly when their logs are equal.
type EventLog []string

// Diff is the first line where l and m differ, "" when they are equal.
func (l EventLog) Diff(m EventLog) string {
	for i := range max(len(l), len(m)) {
		a, b := "<end>", "<end>"
		if i < len(l) {
			a = l[i]
		}
		if i < len(m) {
			b = m[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: %q != %q", i+1, a, b)
		}
	}
	return ""
}

func eventLog(history []byte, final map[histories.Key][]written) (EventLog, error) {
	var lines EventLog
	err := histories.NewReader(bytes.NewReader(history), "history").Scan(func(op *histories.Op) error {
		lines = append(lines, opEvents(op)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(lines) // key, then time (zero-padded), then the event's text
	ranks := map[int64]int{}
	for _, k := range slices.Sorted(maps.Keys(final)) {
		for _, w := range final[k] {
			if _, ok := ranks[w.Producer]; !ok {
				ranks[w.Producer] = len(ranks)
			}
			lines = append(lines, fmt.Sprintf("log k%d %d=%d producer#%d epoch %d", k, w.Offset, w.Value, ranks[w.Producer], w.Epoch))
		}
	}
	return lines, nil
}

// opEvents are op's events, one per key it touches ("k<key> <time> ..."),
// and one for a nemesis op.
func opEvents(op *histories.Op) []string {
	if op.Type == histories.Invoke {
		return nil
	}
	head := func(k histories.Key) string {
		return fmt.Sprintf("k%d %015d p%d %s %s", k, op.Time, op.Process, op.Type, op.F)
	}
	if !op.IsClient() {
		return []string{fmt.Sprintf("nemesis %015d %s %s", op.Time, op.F, op.Value)}
	}
	var out []string
	for _, m := range op.Mops {
		switch m.F {
		case histories.MSend:
			out = append(out, fmt.Sprintf("%s send %d@%d", head(m.Key), m.Value, m.Offset))
		case histories.MPoll:
			for k, rs := range m.Records {
				var b strings.Builder
				for _, r := range rs {
					fmt.Fprintf(&b, " %d=%d", r.Offset, r.Value)
				}
				out = append(out, head(k)+" poll"+b.String())
			}
		case histories.MCommit:
			for k, o := range m.Offsets {
				out = append(out, fmt.Sprintf("%s commit %d", head(k), o))
			}
		}
	}
	if rb := op.Rebalance; rb != nil {
		for _, k := range rb.Assigned {
			out = append(out, head(k)+" assigned")
		}
		for _, k := range rb.Revoked {
			out = append(out, head(k)+" revoked")
		}
	}
	if op.F == histories.FCrash {
		out = append(out, fmt.Sprintf("crash %015d p%d", op.Time, op.Process))
	}
	return out
}
