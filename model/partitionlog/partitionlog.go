package partitionlog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/kafkachaos/kafkachaos/histories"
)

// Append is the input of an append of Value. Its output is the offset the
// value landed at (an int64), histories.NoOffset when it is unknown.
type Append struct{ Value int64 }

// Read is the input of a read. Its output is the []histories.Record read,
// at least one, in offset order.
type Read struct{}

// Model is the porcupine model of one partition log whose appends of known
// offset have, sorted, the offsets known (see KnownOffsets).
//
// An append of known offset must be the next of those offsets: every such
// append is certain to happen (the caller drops unseen appends of unknown
// outcome), and once a higher offset is in the log a lower one can never
// follow. The log alone would allow the jump (offsets have gaps), but
// porcupine would then explore every too-early placement of an append that
// was only read long after it began, and each is a dead end; refusing them
// keeps the search linear on correct histories without changing a verdict.
//
// DescribeOperationMetadata is left to the caller, who knows what the
// operations' Metadata holds.
func Model(known []int64) porcupine.Model {
	return porcupine.Model{
		Init:              func() interface{} { return (*state)(nil) },
		Step:              step(known),
		Equal:             equal,
		Hash:              hash,
		DescribeOperation: describeOperation,
		DescribeState:     describeState,
	}
}

// KnownOffsets lists, sorted, the offsets of the appends in ops that have
// one: the argument of Model.
func KnownOffsets(ops []porcupine.Operation) []int64 {
	var offs []int64
	for _, op := range ops {
		if off, isAppend := op.Output.(int64); isAppend && off != histories.NoOffset {
			offs = append(offs, off)
		}
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	return offs
}

// step applies one operation to the log.
func step(known []int64) func(st, input, output interface{}) (bool, interface{}) {
	return func(st, input, output interface{}) (bool, interface{}) {
		l := st.(*state)
		if _, isRead := input.(Read); isRead {
			return l.holds(output.([]histories.Record)), l
		}
		off := output.(int64)
		if off != histories.NoOffset {
			if k := l.knownCount(); k >= len(known) || known[k] != off || off < l.nextFree() {
				return false, l
			}
		}
		return true, l.push(input.(Append).Value, off)
	}
}

// state is the model's state: a persistent list of log entries from the
// tail back, so that an append shares everything before it and porcupine
// can keep many states cheaply. nil is the empty log.
type state struct {
	prev          *state
	jump          *state // an earlier entry, for searches in O(log n) steps
	value, offset int64  // offset NoOffset when no one learned it
	length        int
	lastKnown     int64 // the highest known offset at or before this entry, -1 if none
	unknownSince  int64 // entries of unknown offset after lastKnown
	known         int   // entries of known offset, up to this one
	hash          uint64
}

// nextFree is the lowest offset the next entry can have: each entry of
// unknown offset needs one of its own.
func (l *state) nextFree() int64 {
	if l == nil {
		return 0
	}
	return l.lastKnown + 1 + l.unknownSince
}

func (l *state) push(value, offset int64) *state {
	n := &state{prev: l, value: value, offset: offset, length: 1, lastKnown: -1, hash: 14695981039346656037}
	if l != nil {
		n.jump = l
		if j := l.jump; j != nil && l.length-j.length == j.length-j.jump.len() {
			n.jump = j.jump
		}
		n.length, n.lastKnown, n.unknownSince, n.known, n.hash = l.length+1, l.lastKnown, l.unknownSince, l.known, l.hash
	}
	if offset == histories.NoOffset {
		n.unknownSince++
	} else {
		n.lastKnown, n.unknownSince = offset, 0
		n.known++
	}
	n.hash = (n.hash ^ uint64(value)) * 1099511628211
	n.hash = (n.hash ^ uint64(offset)) * 1099511628211
	return n
}

// len is the number of entries; nil is the empty log.
func (l *state) len() int {
	if l == nil {
		return 0
	}
	return l.length
}

// holds reports whether rs are consecutive entries of the log.
func (l *state) holds(rs []histories.Record) bool {
	last := rs[len(rs)-1].Offset
	if l == nil || l.lastKnown < last {
		return false
	}
	// Find the earliest entry whose lastKnown reaches last: lastKnown only
	// grows along the log, and it is the entry where offset last was set,
	// if any was. Jump pointers (Myers' skew-binary scheme) make this
	// logarithmic: reads of old records are common.
	for {
		if j := l.jump; j != nil && j.lastKnown >= last {
			l = j
		} else if p := l.prev; p != nil && p.lastKnown >= last {
			l = p
		} else {
			break
		}
	}
	for i := len(rs) - 1; i >= 0; i-- {
		if l == nil || l.offset != rs[i].Offset || l.value != rs[i].Value {
			return false
		}
		l = l.prev
	}
	return true
}

// knownCount is the number of entries of known offset in the log.
func (l *state) knownCount() int {
	if l == nil {
		return 0
	}
	return l.known
}

func equal(a, b interface{}) bool {
	x, y := a.(*state), b.(*state)
	for x != y {
		if x == nil || y == nil || x.hash != y.hash || x.length != y.length ||
			x.value != y.value || x.offset != y.offset {
			return false
		}
		x, y = x.prev, y.prev
	}
	return true
}

func hash(st interface{}) uint64 {
	if l := st.(*state); l != nil {
		return l.hash
	}
	return 0
}

func describeOperation(input, output interface{}) string {
	if _, isRead := input.(Read); isRead {
		return "poll -> " + describeRecords(output.([]histories.Record))
	}
	return fmt.Sprintf("send(%d) -> %s", input.(Append).Value, describeOffset(output.(int64)))
}

func describeOffset(off int64) string {
	if off == histories.NoOffset {
		return "?"
	}
	return fmt.Sprint(off)
}

// describeRecords shows at most six records, eliding the middle.
func describeRecords(rs []histories.Record) string {
	parts := make([]string, 0, 7)
	for i, r := range rs {
		if len(rs) > 6 && i == 3 {
			parts = append(parts, fmt.Sprintf("…%d more…", len(rs)-6))
		}
		if len(rs) <= 6 || i < 3 || i >= len(rs)-3 {
			parts = append(parts, fmt.Sprintf("%d:%d", r.Offset, r.Value))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// describeState shows the last six entries as offset:value.
func describeState(st interface{}) string {
	l := st.(*state)
	if l == nil {
		return "[]"
	}
	var parts []string
	for n := l; n != nil && len(parts) < 6; n = n.prev {
		parts = append(parts, describeOffset(n.offset)+":"+fmt.Sprint(n.value))
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	prefix := ""
	if l.length > len(parts) {
		prefix = fmt.Sprintf("…%d earlier… ", l.length-len(parts))
	}
	return "[" + prefix + strings.Join(parts, " ") + "]"
}
