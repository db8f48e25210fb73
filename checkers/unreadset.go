package checkers

// unreadSet is the backlog's records not read yet: unread state by key and
// value. It replaces a Go map because the backlog of a long history holds
// millions of records and turns over every one of them: here each key has
// an open-addressing table indexed by the value itself, so that values
// sent and read in about their order (as every workload numbers them) are
// stored and looked up at neighbouring places in memory. A table whose
// values collide anyway (say, multiples of a power of two) switches to a
// scrambling hash.
type unreadSet struct {
	keys    map[int64]*valueTable
	last    *valueTable // the table of the last key looked up
	lastKey int64
}

// valueTable is one key's values, linear probing with deletion by backward
// shift (no tombstones: a table's memory follows its size, not its history).
type valueTable struct {
	slots    []unreadSlot
	n        int
	scramble bool
}

type unreadSlot struct {
	value int64
	u     unread // u.full marks the slot taken
}

const (
	minValueTable = 64
	// maxProbe is the probe length past which a table scrambles its hash.
	maxProbe = 64
)

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
		t = &valueTable{slots: make([]unreadSlot, minValueTable)}
		s.keys[key] = t
	}
	s.last, s.lastKey = t, key
	return t
}

func (s *unreadSet) get(kv keyValue) (unread, bool) {
	t := s.table(kv.key, false)
	if t == nil {
		return unread{}, false
	}
	if i, ok := t.find(kv.value); ok {
		u := t.slots[i].u
		u.full = false
		return u, true
	}
	return unread{}, false
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
		for i := range t.slots {
			if u := t.slots[i].u; u.full {
				u.full = false
				fn(keyValue{k, t.slots[i].value}, u)
			}
		}
	}
}

func (t *valueTable) mask() int { return len(t.slots) - 1 }

func (t *valueTable) home(v int64) int {
	h := uint64(v)
	if t.scramble {
		h *= 0x9E3779B97F4A7C15
		h ^= h >> 29
	}
	return int(h) & t.mask()
}

// find returns the slot of v, or the empty slot where it would go.
func (t *valueTable) find(v int64) (int, bool) {
	m := t.mask()
	for i := t.home(v); ; i = (i + 1) & m {
		switch {
		case !t.slots[i].u.full:
			return i, false
		case t.slots[i].value == v:
			return i, true
		}
	}
}

func (t *valueTable) put(v int64, u unread) {
	u.full = true
	i, ok := t.find(v)
	if ok {
		t.slots[i].u = u
		return
	}
	t.slots[i] = unreadSlot{value: v, u: u}
	t.n++
	switch {
	case 4*t.n > 3*len(t.slots):
		t.rehash(2*len(t.slots), t.scramble)
	case !t.scramble && (i-t.home(v))&t.mask() > maxProbe:
		t.rehash(len(t.slots), true)
	}
}

func (t *valueTable) rehash(size int, scramble bool) {
	old := t.slots
	t.slots, t.scramble = make([]unreadSlot, size), scramble
	for i := range old {
		if old[i].u.full {
			j, _ := t.find(old[i].value)
			t.slots[j] = old[i]
		}
	}
}

func (t *valueTable) del(v int64) {
	i, ok := t.find(v)
	if !ok {
		return
	}
	m := t.mask()
	// Move back each later entry of the probe run whose home is not
	// between the hole and it, so that every lookup still finds it.
	for j := (i + 1) & m; t.slots[j].u.full; j = (j + 1) & m {
		if h := t.home(t.slots[j].value); (j-h)&m >= (j-i)&m {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = unreadSlot{}
	t.n--
}
