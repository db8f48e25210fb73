package checkers

// unreadSet is the backlog's records not read yet: unread state by key and
// value. It replaces a Go map because the backlog of a long history holds
// millions of records and turns over every one of them: here each key has
// an open-addressing table that keeps runs of neighbouring values together
// (see home), so that values sent and read in about their order (as every
// workload numbers them) are stored and looked up at neighbouring places in
// memory. A table whose values collide anyway (say, multiples of a power
// of two) switches to a scrambling hash.
type unreadSet struct {
	keys    map[int64]*valueTable
	last    *valueTable // the table of the last key looked up
	lastKey int64
}

// valueTable is one key's values, linear probing with deletion by backward
// shift (no tombstones: a table's memory follows its size, not its history),
// grown at three quarters full. A control byte per slot, 0 for empty and
// else a tag of 7 bits of the value's hash, lets a lookup scan the small
// control array and touch a slot only on a matching tag: most lookups are
// of records read before, which are absent.
type valueTable struct {
	ctrl     []uint8
	slots    []unreadSlot
	n        int
	scramble bool
}

type unreadSlot struct {
	value int64
	u     unread
}

const (
	minValueTable = 64
	// maxProbe is the probe length past which a table scrambles its hash.
	maxProbe = 64
)

func newValueTable(size int, scramble bool) *valueTable {
	return &valueTable{ctrl: make([]uint8, size), slots: make([]unreadSlot, size), scramble: scramble}
}

func (t *valueTable) mask() int { return len(t.slots) - 1 }

// home is where v's probe starts. Values are placed in runs of runValues:
// a run keeps its place within a run of slots, and runs are scattered.
// Placing by the value alone would keep locality too, but a backlog spans
// many times its table's size in values (a key's values are interleaved
// with other keys', and unread stragglers stay while new values arrive),
// so the values that wrap onto one place pile up into long probes; the
// scattering spreads them.
func (t *valueTable) home(v int64) int {
	h := uint64(v)
	if t.scramble {
		return int(mix(h)) & t.mask()
	}
	return int(mix(h>>runBits)<<runBits|h&(runValues-1)) & t.mask()
}

// Runs of values that keep their places (see home).
const (
	runBits   = 6
	runValues = 1 << runBits
)

func mix(h uint64) uint64 {
	h *= 0x9E3779B97F4A7C15
	return h ^ h>>29
}

// tag is the control byte of a slot holding v.
func tag(v int64) uint8 { return 0x80 | uint8((uint64(v)*0x9E3779B97F4A7C15)>>57) }

// find returns the slot of v, or the empty slot where it would go.
func (t *valueTable) find(v int64) (int, bool) {
	m, want := t.mask(), tag(v)
	for i := t.home(v); ; i = (i + 1) & m {
		switch c := t.ctrl[i]; {
		case c == 0:
			return i, false
		case c == want && t.slots[i].value == v:
			return i, true
		}
	}
}

func (t *valueTable) put(v int64, u unread) {
	i, ok := t.find(v)
	if ok {
		t.slots[i].u = u
		return
	}
	t.ctrl[i], t.slots[i] = tag(v), unreadSlot{value: v, u: u}
	t.n++
	switch {
	case 4*t.n > 3*len(t.slots):
		t.rehash(2*len(t.slots), t.scramble)
	case !t.scramble && (i-t.home(v))&t.mask() > maxProbe:
		t.rehash(len(t.slots), true)
	}
}

func (t *valueTable) rehash(size int, scramble bool) {
	old := *t
	*t = *newValueTable(size, scramble)
	t.n = old.n
	for i, c := range old.ctrl {
		if c != 0 {
			j, _ := t.find(old.slots[i].value)
			t.ctrl[j], t.slots[j] = c, old.slots[i]
		}
	}
}

func (t *valueTable) del(v int64) {
	if i, ok := t.find(v); ok {
		t.remove(i)
	}
}

// remove empties slot i, which holds a value.
func (t *valueTable) remove(i int) {
	m := t.mask()
	// Move back each later entry of the probe run whose home is not
	// between the hole and it, so that every lookup still finds it.
	for j := (i + 1) & m; t.ctrl[j] != 0; j = (j + 1) & m {
		if h := t.home(t.slots[j].value); (j-h)&m >= (j-i)&m {
			t.ctrl[i], t.slots[i] = t.ctrl[j], t.slots[j]
			i = j
		}
	}
	t.ctrl[i], t.slots[i] = 0, unreadSlot{}
	t.n--
}

func (s *unreadSet) table(key int64, create bool) *valueTable {
	if s.last != nil && s.lastKey == key {
		return s.last
	}
	t := s.keys[key]
	if t == nil {
		if !create {
			return nil
		}
		if s.keys == nil {
			s.keys = map[int64]*valueTable{}
		}
		t = newValueTable(minValueTable, false)
		s.keys[key] = t
	}
	s.last, s.lastKey = t, key
	return t
}

// ref returns kv's record to change in place, nil when there is none; it
// is valid until the next put or del.
func (s *unreadSet) ref(kv keyValue) *unread {
	t := s.table(kv.key, false)
	if t == nil {
		return nil
	}
	if i, ok := t.find(kv.value); ok {
		return &t.slots[i].u
	}
	return nil
}

// take removes kv's record and returns it.
func (s *unreadSet) take(kv keyValue) (unread, bool) {
	t := s.table(kv.key, false)
	if t == nil {
		return unread{}, false
	}
	i, ok := t.find(kv.value)
	if !ok {
		return unread{}, false
	}
	u := t.slots[i].u
	t.remove(i)
	return u, true
}

func (s *unreadSet) put(kv keyValue, u unread) { s.table(kv.key, true).put(kv.value, u) }

func (s *unreadSet) del(kv keyValue) {
	if t := s.table(kv.key, false); t != nil {
		t.del(kv.value)
	}
}

// each calls fn with every record, in no particular order.
func (s *unreadSet) each(fn func(keyValue, unread)) {
	for k, t := range s.keys {
		for i, c := range t.ctrl {
			if c != 0 {
				fn(keyValue{k, t.slots[i].value}, t.slots[i].u)
			}
		}
	}
}
