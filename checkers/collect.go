package checkers

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kafkachaos/kafkachaos/histories"
)

// pendingSend is a send with a known offset from an info op: it joins the
// version order only if the op is proven to have taken effect.
type pendingSend struct {
	op     int64
	key    int64
	value  int64
	offset int64
}

// collector is pass 1: it reads every op once and builds the per-key version
// orders and value tables that pass 2 judges ops against.
type collector struct {
	keys     map[int64]*keyState
	keyList  []*keyState // sorted by key after seal
	nodeOps  []int64     // graph node -> op index (ok ops that send)
	pending  []pendingSend
	replay   *replay       // the ops pass 2 judges
	failedAt []pendingSend // failed sends with a known offset
	stats    Stats
	unknownF map[string]int64
	hangs    []ClientHang
	live     *liveFeed // liveness (progress.go), on its own goroutine
	prog     *progress // liveness once pass 1 has ended
	workers  int       // for the per-key passes; 0 is GOMAXPROCS
	byType   opCounts
	prev     int64
}

// fType is an op's f and type, the key of Stats.OpsByType.
type fType struct {
	f string
	t histories.Type
}

// opCounts counts ops by f and type: in an array for the client fs the
// checker knows (hashing two strings per op was a twentieth of pass 1),
// in a map for the others.
type opCounts struct {
	known [8][4]int64 // by fCodes and typeCodes (replay.go)
	other map[fType]int64
}

func (o *opCounts) add(f string, t histories.Type) {
	if fi, ti := slices.Index(fCodes, f), slices.Index(typeCodes, t); fi >= 0 && fi < len(o.known) && ti >= 0 {
		o.known[fi][ti]++
		return
	}
	if o.other == nil {
		o.other = map[fType]int64{}
	}
	o.other[fType{f, t}]++
}

// each calls fn with every f and type counted and its count.
func (o *opCounts) each(fn func(fType, int64)) {
	for fi, byT := range o.known[:len(fCodes)] {
		for ti, n := range byT[:len(typeCodes)] {
			if n > 0 {
				fn(fType{fCodes[fi], typeCodes[ti]}, n)
			}
		}
	}
	for ft, n := range o.other {
		fn(ft, n)
	}
}

func newCollector(workers int) *collector {
	return &collector{
		workers:  workers,
		keys:     map[int64]*keyState{},
		replay:   newReplay(),
		live:     newLiveFeed(),
		stats:    Stats{OpsByType: map[string]int64{}},
		unknownF: map[string]int64{},
		prev:     -1,
	}
}

func (c *collector) key(k int64) *keyState {
	ks, ok := c.keys[k]
	if !ok {
		ks = newKeyState(k)
		c.keys[k] = ks
		c.keyList = append(c.keyList, ks)
	}
	return ks
}

// isClientF reports whether f is a client op the checker understands.
func isClientF(f string) bool {
	switch f {
	case histories.FSend, histories.FPoll, histories.FTxn, histories.FAssign,
		histories.FSubscribe, histories.FCommit, histories.FCrash:
		return true
	}
	return false
}

// sendsOf and readsOf say which ops' mops count as writes and reads, as in
// Jepsen (op-writes: send and txn; op-reads: poll and txn).
func sendsOf(op *histories.Op) bool { return op.F == histories.FSend || op.F == histories.FTxn }
func readsOf(op *histories.Op) bool { return op.F == histories.FPoll || op.F == histories.FTxn }

// isGraphNode reports whether op is a node of the dependency graph. Only ops
// that send can have an outgoing edge, so only they can lie on a cycle.
func isGraphNode(op *histories.Op) bool {
	if op.Type != histories.OK || !sendsOf(op) {
		return false
	}
	for i := range op.Mops {
		if op.Mops[i].F == histories.MSend {
			return true
		}
	}
	return false
}

func (c *collector) visit(op *histories.Op) error {
	if err := validate(op, c.prev); err != nil {
		return err
	}
	c.prev = op.Index
	c.stats.Ops++
	c.byType.add(op.F, op.Type)
	c.live.visit(op)
	if op.F == histories.FClientHang {
		// A liveness finding, not an operation: no detector judges it.
		return c.hang(op)
	}
	if op.IsClient() && !isClientF(op.F) {
		c.unknownF[op.F]++
		return nil
	}
	if op.Type == histories.Invoke || !op.IsClient() {
		return nil
	}
	node := int32(-1)
	if isGraphNode(op) {
		node = int32(len(c.nodeOps))
		c.nodeOps = append(c.nodeOps, op.Index)
	}
	final := isFinal(op)
	if final && op.F == histories.FAssign && op.Type == histories.OK {
		c.coverFinal(op)
	}
	for i := range op.Mops {
		m := &op.Mops[i]
		var err error
		switch {
		case m.F == histories.MSend && sendsOf(op):
			if err = checkSend(op, i, m); err == nil {
				c.send(op, m, node, final)
			}
		case m.F == histories.MPoll && readsOf(op):
			err = c.poll(op, i, m, final)
		default:
			err = checkOtherMop(op, i, m)
		}
		if err != nil {
			return err
		}
	}
	c.replay.add(op) // validated: pass 2 judges it
	return nil
}

func (c *collector) send(op *histories.Op, m *histories.Mop, node int32, final bool) {
	c.stats.Writes++
	ks := c.key(m.Key)
	var s int32
	read := false
	if op.Type == histories.OK && m.Offset >= 0 {
		s = ks.observe(m.Offset, m.Value)
		read = ks.slots.at(s).flags&readOK != 0
	} else {
		s = ks.slots.add(m.Value)
	}
	if !final {
		c.live.sent(keyValue{m.Key, m.Value}, op.Type == histories.OK && m.Offset >= 0, read)
	}
	t := &ks.slots
	if t.at(s).writer >= 0 && t.at(s).writer != op.Index {
		t.at(s).flags |= multiWrite
	}
	t.at(s).writer = op.Index
	t.at(s).node = node
	if op.F == histories.FTxn {
		t.at(s).flags |= wTxn
	}
	switch op.Type {
	case histories.OK:
		c.stats.AckedWrite++
		t.at(s).flags |= wOK
	case histories.Info:
		t.at(s).flags |= wInfo
		if m.Offset >= 0 {
			c.pending = append(c.pending, pendingSend{op.Index, m.Key, m.Value, m.Offset})
		}
	case histories.Fail:
		t.at(s).flags |= wFail
		if m.Offset >= 0 {
			c.failedAt = append(c.failedAt, pendingSend{op.Index, m.Key, m.Value, m.Offset})
		}
	}
}

func (c *collector) poll(op *histories.Op, i int, m *histories.Mop, final bool) error {
	ok := op.Type == histories.OK
	for k, recs := range m.Records {
		ks := c.key(k)
		read := readFlags(ks, op, final)
		if ok && !final && len(recs) > 0 {
			c.live.watch(k)
		}
		for _, r := range recs {
			if err := checkRecord(op, i, k, r); err != nil {
				return err
			}
			c.stats.Reads++
			s := ks.observe(r.Offset, r.Value)
			if ok {
				ks.slots.at(s).flags |= read
				c.live.read(keyValue{k, r.Value})
			}
		}
	}
	return nil
}

// sealCounts is what sealing one key found that the warnings count.
type sealCounts struct{ unwritten, multi int64 }

// sealKey decides which of the key's values were committed and numbers its
// log; infoDone is only read.
func (ks *keyState) sealKey(infoDone map[int64]bool) sealCounts {
	var n sealCounts
	if ks.dirty {
		ks.merge()
	}
	ks.sealRewrites(infoDone)
	t := &ks.slots
	for s := int32(0); s < t.len(); s++ {
		f := t.at(s).flags
		if f&merged != 0 {
			continue
		}
		if f&wOK != 0 || (f&wInfo != 0 && infoDone[t.at(s).writer]) {
			t.at(s).flags |= committed
		}
		if f&wFail != 0 && t.at(s).offset != histories.NoOffset {
			ks.maybeAborted = true
		}
		if t.at(s).writer < 0 {
			n.unwritten++
		}
		if f&multiWrite != 0 && !ks.isRecopy(s) {
			n.multi++
		}
	}
	ks.seal()
	return n
}

// seal ends pass 1: it decides which writers took effect, adds their pending
// sends, and numbers every key's log. It returns warnings.
func (c *collector) seal() []string {
	var warns []string
	eachKey(c.keyList, c.workers, func(_ int, ks *keyState) { ks.merge() })
	// An info op took effect if an ok op read one of its values.
	infoDone := map[int64]bool{}
	for _, ks := range c.keyList {
		t := &ks.slots
		for s := int32(0); s < t.len(); s++ {
			if f := t.at(s).flags; f&wInfo != 0 && f&readOK != 0 && f&merged == 0 {
				infoDone[t.at(s).writer] = true
			}
		}
	}
	for _, p := range c.failedAt {
		c.keys[p.key].noteFailedAt(p)
	}
	c.failedAt = nil
	for _, p := range c.pending {
		if infoDone[p.op] {
			ks := c.keys[p.key]
			ks.notePlaced(p)
			ks.observe(p.offset, p.value)
			ks.dirty = true
		}
	}
	c.pending = nil
	// liveness needs only spans from here on: the backlog goes before pass 2
	c.prog = c.live.end()
	c.prog.seal(func(k int64) bool { ks, ok := c.keys[k]; return ok && ks.finalFrom >= 0 })
	sort.Slice(c.keyList, func(i, j int) bool { return c.keyList[i].key < c.keyList[j].key })
	counts := make([]sealCounts, len(c.keyList))
	eachKey(c.keyList, c.workers, func(i int, ks *keyState) { counts[i] = ks.sealKey(infoDone) })
	var unwritten, multi int64
	for _, n := range counts {
		unwritten += n.unwritten
		multi += n.multi
	}
	c.stats.Keys = int64(len(c.keyList))
	c.byType.each(func(ft fType, n int64) { c.stats.OpsByType[ft.f+" "+string(ft.t)] = n })
	if unwritten > 0 {
		warns = append(warns, fmt.Sprintf("%d values were read that no completed op sent (invoke-only writes or foreign data); they are not judged as writes", unwritten))
	}
	if multi > 0 {
		warns = append(warns, fmt.Sprintf("%d values were sent by more than one op; values should be unique per key, the last sender that took effect is taken as the writer", multi))
	}
	fs := make([]string, 0, len(c.unknownF))
	for f := range c.unknownF {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	for _, f := range fs {
		warns = append(warns, fmt.Sprintf("%d client ops with unknown f %q were ignored", c.unknownF[f], f))
	}
	return warns
}
