package groundtruth

import "github.com/kafkachaos/kafkachaos/histories"

// invisible marks a log slot read_committed readers skip: an aborted record
// or a transaction control marker.
const invisible int64 = -1

// plog is one key's log: the value at each offset, or invisible.
type plog struct {
	slots []int64
}

func (l *plog) end() int64 { return int64(len(l.slots)) }

// append writes v at the end and returns its offset.
func (l *plog) append(v int64) int64 {
	l.slots = append(l.slots, v)
	return int64(len(l.slots) - 1)
}

// read returns up to n visible records from offset pos and the position after
// the last one returned. Invisible slots before that point are passed over,
// as a read_committed consumer does; those after it are left for the next
// read, so the position never passes a record it did not return.
func (l *plog) read(pos int64, n int) ([]histories.Record, int64) {
	var recs []histories.Record
	for o := pos; o < l.end() && len(recs) < n; o++ {
		if v := l.slots[o]; v != invisible {
			recs = append(recs, histories.Record{Offset: o, Value: v})
			pos = o + 1
		}
	}
	return recs, pos
}

// unread reports whether a visible record lies at or after pos.
func (l *plog) unread(pos int64) bool {
	for o := pos; o < l.end(); o++ {
		if l.slots[o] != invisible {
			return true
		}
	}
	return false
}
