package checkers

import (
	"cmp"
	"math"
	"slices"

	"github.com/kafkachaos/kafkachaos/histories"
)

// keyValue names one value of one key.
type keyValue struct{ key, value int64 }

// unread is a record the workload has not read yet.
type unread struct {
	sentAt int64 // invoke of the op that sent it (its completion when the history has no invoke)
	// ackOp and ackAt are the ok completion that reported its offset; ackOp
	// is -1 until then (a send without an offset is not timed).
	ackOp, ackAt int64
	acked        bool // an ok op sent it: it is in the log
	final        bool // a final read returned it: it is in the log
}

// openInvoke is a process's client invoke not yet completed.
type openInvoke struct {
	at    int64
	sends bool // it named the values it sends, so backlog follows them from it
	open  bool
}

// openInvokes holds each process's open invoke: in a slice for the small
// process numbers every workload uses (a map lookup per op was a tenth of
// the backlog's time), in a map for any other.
type openInvokes struct {
	small []openInvoke
	other map[int64]openInvoke
}

const smallProcesses = 1 << 12

func (o *openInvokes) put(p int64, inv openInvoke) {
	inv.open = true
	if p >= 0 && p < smallProcesses {
		if int(p) >= len(o.small) {
			o.small = append(o.small, make([]openInvoke, int(p)+1-len(o.small))...)
		}
		o.small[p] = inv
		return
	}
	if o.other == nil {
		o.other = map[int64]openInvoke{}
	}
	o.other[p] = inv
}

// take returns p's open invoke and closes it.
func (o *openInvokes) take(p int64) (openInvoke, bool) {
	if p >= 0 && p < int64(len(o.small)) {
		inv := o.small[p]
		o.small[p] = openInvoke{}
		return inv, inv.open
	}
	inv, ok := o.other[p]
	delete(o.other, p)
	return inv, ok
}

// backlog follows each record the workload may have to read, from the
// invoke of the op that sent it to the first ok workload read that returned
// it: these waits decide which empty polls were caught up, and the acked
// sends among them give the worst realtime lag. It holds only records not
// read yet, so its size is the consumers' backlog, not the history's; a
// wait that ended is kept as a span, merged with the last one where they
// overlap (16 bytes a span, fewer spans than records).
type backlog struct {
	unread  unreadSet
	invokes openInvokes
	cur     openInvoke // the invoke of the completion being visited
	hasCur  bool
	watched map[int64]bool // keys the workload assigned, subscribed to or read
	waits   []span
	worst   *RealtimeLag
}

// started is when op began: its own time for an invoke, its invoke's for
// the completion being visited, its own again when the history has no
// invoke for it.
func (b *backlog) started(op *histories.Op) int64 {
	if op.Type != histories.Invoke && b.hasCur {
		return b.cur.at
	}
	return op.Time
}

// visit notes a workload op: an invoke opens its process's op (and starts
// the wait of each value it sends), a completion closes it; assignments
// name the keys the workload reads.
func (b *backlog) visit(op *histories.Op) {
	if op.Type == histories.Invoke {
		b.invoke(op)
	} else {
		b.cur, b.hasCur = b.invokes.take(op.Process)
	}
	if op.F == histories.FAssign || op.F == histories.FSubscribe {
		b.watch(op.Keys...)
	}
	if op.Rebalance != nil {
		b.watch(op.Rebalance.Assigned...)
	}
}

func (b *backlog) invoke(op *histories.Op) {
	inv := openInvoke{at: op.Time}
	for i := range op.Mops {
		if m := &op.Mops[i]; m.F == histories.MSend && sendsOf(op) {
			inv.sends = true
			b.put(keyValue{m.Key, m.Value}, unread{sentAt: op.Time, ackOp: -1})
		}
	}
	b.invokes.put(op.Process, inv)
}

func (b *backlog) put(kv keyValue, u unread) { b.unread.put(kv, u) }

func (b *backlog) watch(keys ...int64) {
	if b.watched == nil {
		b.watched = map[int64]bool{}
	}
	for _, k := range keys {
		b.watched[k] = true
	}
}

// sent notes the completion op of a send of kv. A value the workload read
// before its sender completed has no wait left to follow: its invoke named
// it (and the read ended its wait), or an ok op had read it already
// (alreadyRead; the final reads come after every send). A failed send
// wrote nothing.
func (b *backlog) sent(op *histories.Op, kv keyValue, offsetKnown, alreadyRead bool) {
	if u := b.unread.ref(kv); u != nil {
		switch op.Type {
		case histories.Fail:
			b.unread.del(kv)
		case histories.OK:
			ack(u, op, offsetKnown)
		} // an info completion changes nothing the invoke did not say
		return
	}
	if (b.hasCur && b.cur.sends) || alreadyRead || op.Type == histories.Fail {
		return
	}
	u := unread{sentAt: op.Time, ackOp: -1}
	if b.hasCur {
		u.sentAt = b.cur.at
	}
	if op.Type == histories.OK {
		ack(&u, op, offsetKnown)
	}
	b.put(kv, u)
}

func ack(u *unread, op *histories.Op, offsetKnown bool) {
	u.acked = true
	if offsetKnown {
		u.ackOp, u.ackAt = op.Index, op.Time
	}
}

// read notes that ok op returned kv: a final read proves the record is in
// the log, a workload read ends its wait (its caller watches the key).
func (b *backlog) read(op *histories.Op, kv keyValue, final bool) {
	if final {
		if u := b.unread.ref(kv); u != nil {
			u.final = true
		}
		return
	}
	u, ok := b.unread.take(kv)
	if !ok {
		return
	}
	b.wait(span{u.sentAt, op.Time})
	if u.ackOp < 0 {
		return
	}
	if lag := (RealtimeLag{Ns: op.Time - u.ackAt, Key: kv.key, Value: kv.value, SendOp: u.ackOp, ReadOp: op.Index}); worse(lag, b.worst) {
		b.worst = &lag
	}
}

// worse reports whether lag is worse than the worst so far: longer, or as
// long and read by the same op but of a lower key or value (an op's records
// come out of a map, so this keeps the choice apart from their order).
func worse(lag RealtimeLag, worst *RealtimeLag) bool {
	switch {
	case worst == nil || lag.Ns > worst.Ns:
		return true
	case lag.Ns < worst.Ns || lag.ReadOp != worst.ReadOp:
		return false
	}
	return lag.Key < worst.Key || lag.Key == worst.Key && lag.Value < worst.Value
}

func (b *backlog) wait(s span) {
	if n := len(b.waits); n > 0 && s.from <= b.waits[n-1].to && s.to >= b.waits[n-1].from {
		b.waits[n-1] = span{min(s.from, b.waits[n-1].from), max(s.to, b.waits[n-1].to)}
		return
	}
	b.waits = append(b.waits, s)
}

// seal returns the times some record waited for the workload, as disjoint
// spans in time order. A record never read by the workload, on a key it
// reads, waited to the end if it is in the log: an ok op sent it, a final
// read returned it, or the final reads did not cover its key (an info
// send's record may then be there). An info send the final reads did not
// find never landed.
func (b *backlog) seal(covered func(key int64) bool) []span {
	// Those waits all end at the end: their union is the earliest's.
	from, found := int64(math.MaxInt64), false
	b.unread.each(func(kv keyValue, u unread) {
		if b.watched[kv.key] && (u.acked || u.final || !covered(kv.key)) {
			from, found = min(from, u.sentAt), true
		}
	})
	if found {
		b.waits = append(b.waits, span{from, math.MaxInt64})
	}
	b.unread = unreadSet{}
	b.waits = union(b.waits)
	return b.waits
}

// waiting reports whether a record waited for the workload at time at,
// strictly inside one of the disjoint spans waits.
func waiting(waits []span, at int64) bool {
	i, _ := slices.BinarySearchFunc(waits, at, func(s span, t int64) int { return cmp.Compare(s.from, t) })
	// waits[i-1] is the last span that began before at
	return i > 0 && at < waits[i-1].to && waits[i-1].from < at
}
