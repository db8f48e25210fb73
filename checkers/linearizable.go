package checkers

// The linearizability check: every key's history against a sequential model
// of one partition log (model/partitionlog), with porcupine. This file is the
// adapter: it turns a history into the model's operations. It answers a different question from
// Check's anomaly detectors: not "which rule was broken" but "is there any
// order of the operations, consistent with real time, in which a single log
// would have answered exactly this". It needs a key's ops in memory and its
// search is exponential in concurrency, so it runs apart from Check's
// streaming pass, key by key, each with a time limit and capped in size.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model/partitionlog"
)

// Default caps of CheckLinearizable. Every kept operation costs about 100
// bytes plus 16 per record read until the end of the scan. Porcupine's search
// then costs time and memory quadratic in a key's operations, even on a
// correct history: it caches a bitset of the linearized operations for every
// state it visits. Measured (BenchmarkCheckLinearizable, 4 keys, 6 clients):
// 2,500 ops per key in 11 ms, 25,000 in 0.22 s, 50,000 in 0.77 s and 125 MB
// allocated per key.
const (
	DefaultLinMaxKeys      = 10_000
	DefaultLinMaxOpsPerKey = 50_000
)

// LinOptions tune CheckLinearizable.
type LinOptions struct {
	// Timeout bounds the search of each key; 0 means no limit. A key whose
	// search runs out of time is LinUnknown.
	Timeout time.Duration
	// MaxKeys and MaxOpsPerKey cap what is kept in memory (0: the defaults).
	// Keys past MaxKeys, and keys with more than MaxOpsPerKey operations,
	// are LinSkipped with the reason.
	MaxKeys      int
	MaxOpsPerKey int
	// VisualizeDir, when set, receives porcupine's HTML visualization of
	// every illegal key, as linearizable-key-<key>.html.
	VisualizeDir string
}

// LinOutcome is the verdict on one key.
type LinOutcome string

const (
	LinOK      LinOutcome = "ok"
	LinIllegal LinOutcome = "illegal"
	LinUnknown LinOutcome = "unknown" // the time limit ran out
	LinSkipped LinOutcome = "skipped" // over a cap, or not checkable (see Reason)
)

// LinKey is the verdict on one key.
type LinKey struct {
	Key     int64         `json:"key"`
	Outcome LinOutcome    `json:"outcome"`
	Ops     int           `json:"ops"` // porcupine operations: one per send, one per poll of this key
	Elapsed time.Duration `json:"elapsed-ns"`
	// Visualization is the path of the HTML visualization, for illegal keys
	// when LinOptions.VisualizeDir is set.
	Visualization string `json:"visualization,omitempty"`
	Reason        string `json:"reason,omitempty"`
}

// LinResult lists the verdict on every key, in key order.
type LinResult struct {
	// Valid is false when some key is illegal.
	Valid bool `json:"valid"`
	// Complete is false when some key is unknown or skipped: Valid then
	// speaks only for the keys that were decided.
	Complete bool     `json:"complete"`
	Keys     []LinKey `json:"keys"`
}

// CheckLinearizable checks each key of the history in src against
// partitionlog.Model, the model of one partition log:
//
//   - The state is the log: values in offset order.
//   - A send is append(v). An ok send with a known offset must land exactly
//     there, and offsets only grow but may leave gaps (transaction markers,
//     aborted records). An info send, or one whose op never completed, may
//     or may not have happened: porcupine sees it returning at the end of
//     time, so it can take effect at any point after its invocation,
//     including after every other op, where it is unobservable. (Before the
//     search such sends are narrowed without changing the verdict: see
//     porcupineOps.) A failed send certainly did not happen and is dropped.
//   - A poll's records of the key are a read that must be a contiguous
//     slice of the log: consecutive log entries with exactly those offsets
//     and values. Polls count whatever the op's type: the records were read.
//   - A send whose offset the client did not learn takes the offset reads
//     saw its value at. Values are unique per key, so this is the only place
//     it can be; a read that saw it elsewhere is then illegal, as it should.
//
// Ops of a txn are split into their sends and polls, each over the txn's
// interval: Kafka transactions make a set of records visible together, not
// contiguous in the log. An aborted txn's sends are dropped like any failed
// send, so reads of aborted records are illegal here: a history with
// read_uncommitted consumers of transactions is expected to fail this check.
// A key where one value is sent twice is skipped, with the reason. The op
// passed by src may be reused between calls.
func CheckLinearizable(src Source, opts LinOptions) (LinResult, error) {
	opts = opts.withDefaults()
	b := newLinBuilder(opts)
	if err := src.Scan(b.add); err != nil {
		return LinResult{}, err
	}
	b.finish()
	if opts.VisualizeDir != "" {
		if err := os.MkdirAll(opts.VisualizeDir, 0o755); err != nil {
			return LinResult{}, fmt.Errorf("linearizable: visualization directory: %w", err)
		}
	}
	res := LinResult{Valid: true, Complete: true}
	for _, k := range b.sortedKeys() {
		lk, err := checkLinKey(k, b.keys[k], opts)
		if err != nil {
			return LinResult{}, err
		}
		res.Valid = res.Valid && lk.Outcome != LinIllegal
		res.Complete = res.Complete && (lk.Outcome == LinOK || lk.Outcome == LinIllegal)
		res.Keys = append(res.Keys, lk)
	}
	return res, nil
}

func (o LinOptions) withDefaults() LinOptions {
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultLinMaxKeys
	}
	if o.MaxOpsPerKey <= 0 {
		o.MaxOpsPerKey = DefaultLinMaxOpsPerKey
	}
	return o
}

// checkLinKey runs porcupine on one key and writes its visualization when it
// is illegal.
func checkLinKey(key int64, kh *linKeyHistory, opts LinOptions) (LinKey, error) {
	lk := LinKey{Key: key}
	if kh.skip != "" {
		lk.Outcome, lk.Reason = LinSkipped, kh.skip
		return lk, nil
	}
	ops := kh.porcupineOps()
	lk.Ops = len(ops)
	model := partitionlog.Model(partitionlog.KnownOffsets(ops))
	model.DescribeOperationMetadata = describeLinMeta
	start := time.Now()
	var verdict porcupine.CheckResult
	var info porcupine.LinearizationInfo
	if opts.VisualizeDir == "" {
		verdict = porcupine.CheckOperationsTimeout(model, ops, opts.Timeout)
	} else {
		// Only the verbose check keeps the partial linearizations a
		// visualization shows, and it costs more: ask for it only then.
		verdict, info = porcupine.CheckOperationsVerbose(model, ops, opts.Timeout)
	}
	lk.Elapsed = time.Since(start)
	switch verdict {
	case porcupine.Ok:
		lk.Outcome = LinOK
	case porcupine.Unknown:
		lk.Outcome, lk.Reason = LinUnknown, fmt.Sprintf("no verdict within the time limit %v", opts.Timeout)
	default:
		lk.Outcome, lk.Reason = LinIllegal, "no order of these sends and polls is consistent with one log and with real time"
		if opts.VisualizeDir != "" {
			lk.Visualization = filepath.Join(opts.VisualizeDir, fmt.Sprintf("linearizable-key-%d.html", key))
			if err := porcupine.VisualizePath(model, info, lk.Visualization); err != nil {
				return lk, fmt.Errorf("linearizable: key %d: writing %s: %w", key, lk.Visualization, err)
			}
		}
	}
	return lk, nil
}

// linOp is one porcupine operation on one key: an append or a read.
type linOp struct {
	index     int64 // the history op it comes from
	process   int64
	typ       histories.Type
	call, ret int64
	read      bool
	value     int64              // append
	offset    int64              // append; NoOffset when unknown
	records   []histories.Record // read
}

// linKeyHistory is what is kept of one key.
type linKeyHistory struct {
	ops    []linOp
	sentBy map[int64]int64 // value -> op index, to enforce unique values
	skip   string          // why the key is not checked; ops are dropped
}

// linPending is an invoked op waiting for its completion.
type linPending struct {
	index, time, process int64
	f                    string
	sends                []histories.Mop // copied: the source may reuse the op
}

// linBuilder collects per-key operations from a stream of ops.
type linBuilder struct {
	opts    LinOptions
	pending map[int64]linPending // by process
	keys    map[int64]*linKeyHistory
}

func newLinBuilder(opts LinOptions) *linBuilder {
	return &linBuilder{opts: opts, pending: map[int64]linPending{}, keys: map[int64]*linKeyHistory{}}
}

// add takes one op of the history.
func (b *linBuilder) add(o *histories.Op) error {
	if !o.IsClient() {
		return nil
	}
	if !o.Type.Valid() {
		return fmt.Errorf("linearizable: op %d: unknown type %q", o.Index, o.Type)
	}
	if o.Type == histories.Invoke {
		return b.invoke(o)
	}
	p, ok := b.pending[o.Process]
	if !ok {
		if isDataF(o.F) {
			return fmt.Errorf("linearizable: op %d: %s %s of process %d has no invoke", o.Index, o.Type, o.F, o.Process)
		}
		return nil
	}
	delete(b.pending, o.Process)
	if o.Time < p.time {
		return fmt.Errorf("linearizable: op %d: completes at time %d, before its invoke op %d at %d", o.Index, o.Time, p.index, p.time)
	}
	if o.F != p.f {
		// A different f completing the op (a crash) tells nothing of its
		// outcome: the invoked sends may or may not have happened.
		b.addSends(p, o.Index, p.sends, histories.Info, math.MaxInt64)
		return nil
	}
	return b.complete(p, o)
}

func isDataF(f string) bool {
	return f == histories.FSend || f == histories.FPoll || f == histories.FTxn
}

func (b *linBuilder) invoke(o *histories.Op) error {
	if prev, busy := b.pending[o.Process]; busy {
		return fmt.Errorf("linearizable: op %d: process %d invokes %s while its op %d is still pending", o.Index, o.Process, o.F, prev.index)
	}
	p := linPending{index: o.Index, time: o.Time, process: o.Process, f: o.F}
	for _, m := range o.Mops {
		if m.F == histories.MSend {
			p.sends = append(p.sends, histories.Mop{F: m.F, Key: m.Key, Value: m.Value, Offset: histories.NoOffset})
		}
	}
	b.pending[o.Process] = p
	return nil
}

// complete adds the sends and reads of a completed op.
func (b *linBuilder) complete(p linPending, o *histories.Op) error {
	sends, ret := p.sends, o.Time
	if len(o.Mops) > 0 {
		sends = nil
		for _, m := range o.Mops {
			if m.F == histories.MSend {
				sends = append(sends, m)
			}
		}
	}
	switch o.Type {
	case histories.Fail:
		sends = nil
	case histories.Info:
		ret = math.MaxInt64
	}
	b.addSends(p, o.Index, sends, o.Type, ret)
	for _, m := range o.Mops {
		if m.F != histories.MPoll {
			continue
		}
		for k, rs := range m.Records {
			for _, r := range rs {
				if r.Offset < 0 {
					return fmt.Errorf("linearizable: op %d: poll of key %d returned value %d at negative offset %d", o.Index, k, r.Value, r.Offset)
				}
			}
			if len(rs) > 0 {
				b.addOp(k, linOp{index: o.Index, process: o.Process, typ: o.Type, call: p.time, ret: o.Time, read: true,
					records: append([]histories.Record(nil), rs...)})
			}
		}
	}
	return nil
}

// addSends adds the appends of op index, invoked as p, returning at ret (the
// end of time for sends that may or may not have happened).
func (b *linBuilder) addSends(p linPending, index int64, sends []histories.Mop, typ histories.Type, ret int64) {
	for _, m := range sends {
		kh := b.key(m.Key)
		if kh == nil {
			continue
		}
		if prev, dup := kh.sentBy[m.Value]; dup {
			kh.drop(fmt.Sprintf("value %d is sent twice (ops %d and %d): the log model needs unique values per key", m.Value, prev, index))
			continue
		}
		kh.sentBy[m.Value] = index
		b.addOp(m.Key, linOp{index: index, process: p.process, typ: typ, call: p.time, ret: ret, value: m.Value, offset: m.Offset})
	}
}

// key returns the history of k, or nil when k is not being collected.
func (b *linBuilder) key(k int64) *linKeyHistory {
	kh, ok := b.keys[k]
	if !ok {
		kh = &linKeyHistory{sentBy: map[int64]int64{}}
		if len(b.keys) >= b.opts.MaxKeys {
			kh.drop(fmt.Sprintf("more than %d keys (LinOptions.MaxKeys)", b.opts.MaxKeys))
		}
		b.keys[k] = kh
	}
	if kh.skip != "" {
		return nil
	}
	return kh
}

func (b *linBuilder) addOp(k int64, op linOp) {
	kh := b.key(k)
	if kh == nil {
		return
	}
	if len(kh.ops) >= b.opts.MaxOpsPerKey {
		kh.drop(fmt.Sprintf("more than %d operations (LinOptions.MaxOpsPerKey)", b.opts.MaxOpsPerKey))
		return
	}
	kh.ops = append(kh.ops, op)
}

// drop stops collecting a key and frees what was kept of it.
func (kh *linKeyHistory) drop(reason string) {
	kh.skip, kh.ops, kh.sentBy = reason, nil, nil
}

// finish treats ops still pending at the end of the history as info: their
// sends may or may not have happened.
func (b *linBuilder) finish() {
	procs := make([]int64, 0, len(b.pending))
	for proc := range b.pending {
		procs = append(procs, proc)
	}
	sort.Slice(procs, func(i, j int) bool { return procs[i] < procs[j] })
	for _, proc := range procs {
		p := b.pending[proc]
		b.addSends(p, p.index, p.sends, histories.Info, math.MaxInt64)
	}
	b.pending = nil
}

func (b *linBuilder) sortedKeys() []int64 {
	ks := make([]int64, 0, len(b.keys))
	for k := range b.keys {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// linSeen is where and by when reads first saw a value.
type linSeen struct{ offset, by int64 }

// porcupineOps turns the key's ops into porcupine operations. A send of
// unknown offset gets the offset a read saw its value at. A send of unknown
// outcome is narrowed without changing the verdict, because porcupine's
// search grows with every op left open to the end of time: if no read saw
// it, it is dropped (not happening is always at least as consistent, as an
// unseen entry can only break a read's contiguity or take an offset another
// send needs); if a read saw it, it returns when the first such read
// returned (the model already puts it before that read).
func (kh *linKeyHistory) porcupineOps() []porcupine.Operation {
	seen := map[int64]linSeen{}
	for _, op := range kh.ops {
		for _, r := range op.records {
			s, ok := seen[r.Value]
			if !ok {
				s = linSeen{offset: r.Offset, by: op.ret}
			}
			s.by = min(s.by, op.ret)
			seen[r.Value] = s
		}
	}
	clients := map[int64]int{}
	out := make([]porcupine.Operation, 0, len(kh.ops))
	for _, op := range kh.ops {
		s, wasSeen := seen[op.value]
		if !op.read && op.ret == math.MaxInt64 {
			if !wasSeen {
				continue
			}
			if s.by >= op.call {
				op.ret = s.by
			}
		}
		c, ok := clients[op.process]
		if !ok {
			c = len(clients)
			clients[op.process] = c
		}
		po := porcupine.Operation{ClientId: c, Call: op.call, Return: op.ret, Metadata: linMeta{op.index, op.typ}}
		if op.read {
			po.Input, po.Output = partitionlog.Read{}, op.records
		} else {
			off := op.offset
			if wasSeen && off == histories.NoOffset {
				off = s.offset
			}
			po.Input, po.Output = partitionlog.Append{Value: op.value}, off
		}
		out = append(out, po)
	}
	return out
}

// linMeta names the history op behind a porcupine operation.
type linMeta struct {
	index int64
	typ   histories.Type
}

func describeLinMeta(m interface{}) string {
	mm := m.(linMeta)
	return fmt.Sprintf("op %d (%s)", mm.index, mm.typ)
}
