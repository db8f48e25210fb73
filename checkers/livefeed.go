package checkers

import "github.com/kafkachaos/kafkachaos/histories"

// liveFeed runs pass 1's liveness (progress.go, backlog.go) on a goroutine
// of its own: it is a third of pass 1's work and needs nothing the version
// orders learn later in the history, only what they knew when each op came
// (whether a sent record was read already), which the feed carries. Pass 1
// hands it ops in batches, each op a copy of what liveness reads (times,
// process, outcome, the keys it names, its sends) and the calls pass 1 made
// for it in order; a nemesis op is copied whole.
type liveFeed struct {
	prog  progress
	cur   *liveBatch
	free  chan *liveBatch
	full  chan *liveBatch
	done  chan struct{}
	ended bool
}

// liveBatch is a run of ops for liveness and the memory they share.
type liveBatch struct {
	ops    []liveOp
	events []liveEvent
	keys   []histories.Key
	mops   []histories.Mop
	rebs   []histories.Rebalance
}

// liveOp is one op as liveness sees it.
type liveOp struct {
	op           histories.Op
	final, moved bool
	events       int // its events end here in the batch's events
}

// liveEvent is one call pass 1 made for an op's records.
type liveEvent struct {
	what                     liveCall
	offsetKnown, alreadyRead bool // a sent record's
	kv                       keyValue
}

type liveCall uint8

const (
	callSent liveCall = iota
	callWatch
	callRead
)

const (
	liveBatchOps    = 1024
	liveBatchEvents = 1 << 14
	liveBatches     = 3 // one filled, one read, one waiting
)

func newLiveFeed() *liveFeed {
	f := &liveFeed{free: make(chan *liveBatch, liveBatches), full: make(chan *liveBatch, liveBatches), done: make(chan struct{})}
	for range liveBatches {
		f.free <- &liveBatch{}
	}
	go f.run()
	return f
}

// run replays the batches into prog in order.
func (f *liveFeed) run() {
	defer close(f.done)
	for b := range f.full {
		from := 0
		for i := range b.ops {
			lo := &b.ops[i]
			f.prog.visit(&lo.op, lo.final, lo.moved)
			for _, e := range b.events[from:lo.events] {
				switch e.what {
				case callSent:
					f.prog.backlog.sent(&lo.op, e.kv, e.offsetKnown, e.alreadyRead)
				case callWatch:
					f.prog.backlog.watch(e.kv.key)
				case callRead:
					f.prog.backlog.read(&lo.op, e.kv, lo.final)
				}
			}
			from = lo.events
		}
		f.free <- b
	}
}

// visit copies what liveness reads of op into the batch being filled.
func (f *liveFeed) visit(op *histories.Op) {
	b := f.cur
	if b != nil && (len(b.ops) == liveBatchOps || len(b.events) >= liveBatchEvents) {
		f.full <- b
		b = nil
	}
	if b == nil {
		b = <-f.free
		b.ops, b.events, b.keys, b.mops, b.rebs = b.ops[:0], b.events[:0], b.keys[:0], b.mops[:0], b.rebs[:0]
		f.cur = b
	}
	b.ops = append(b.ops, liveOp{events: len(b.events)})
	lo := &b.ops[len(b.ops)-1]
	if !op.IsClient() {
		lo.op = *op.Clone()
		return
	}
	lo.final = isFinal(op)
	lo.moved = op.Type == histories.OK && moved(op)
	lo.op = histories.Op{Index: op.Index, Time: op.Time, Process: op.Process, Type: op.Type, F: op.F, Group: op.Group}
	lo.op.Keys = b.keep(op.Keys)
	if r := op.Rebalance; r != nil {
		b.rebs = append(b.rebs, histories.Rebalance{Assigned: b.keep(r.Assigned)})
		lo.op.Rebalance = &b.rebs[len(b.rebs)-1]
	}
	start := len(b.mops)
	for i := range op.Mops {
		if m := &op.Mops[i]; m.F == histories.MSend {
			b.mops = append(b.mops, histories.Mop{F: m.F, Key: m.Key, Value: m.Value, Offset: m.Offset})
		}
	}
	lo.op.Mops = b.mops[start:len(b.mops):len(b.mops)]
}

// keep copies keys into the batch.
func (b *liveBatch) keep(keys []histories.Key) []histories.Key {
	if keys == nil {
		return nil
	}
	start := len(b.keys)
	b.keys = append(b.keys, keys...)
	return b.keys[start:len(b.keys):len(b.keys)]
}

// call adds one of the calls pass 1 makes for the op visited last.
func (f *liveFeed) call(e liveEvent) {
	b := f.cur
	b.events = append(b.events, e)
	b.ops[len(b.ops)-1].events = len(b.events)
}

func (f *liveFeed) sent(kv keyValue, offsetKnown, alreadyRead bool) {
	f.call(liveEvent{what: callSent, kv: kv, offsetKnown: offsetKnown, alreadyRead: alreadyRead})
}

func (f *liveFeed) watch(k int64) { f.call(liveEvent{what: callWatch, kv: keyValue{key: k}}) }

func (f *liveFeed) read(kv keyValue) { f.call(liveEvent{what: callRead, kv: kv}) }

// end hands over the last batch and waits until liveness has read every
// op; progress is then the caller's. It may be called again, and must be
// called on every path, so that the goroutine ends.
func (f *liveFeed) end() *progress {
	if !f.ended {
		f.ended = true
		if f.cur != nil {
			f.full <- f.cur
			f.cur = nil
		}
		close(f.full)
	}
	<-f.done
	return &f.prog
}
