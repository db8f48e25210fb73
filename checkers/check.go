package checkers

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Check judges a history: one pass over src, which also keeps a compact
// replay of the ops to judge (replay.go); a second pass over the replay; then
// the final verdicts.
func Check(src Source, opts Options) (Result, error) {
	col := newCollector(opts.workers)
	defer col.live.end()
	if err := src.Scan(col.visit); err != nil {
		return Result{}, err
	}
	warns := col.seal()
	if col.stats.AckedWrite == 0 && col.stats.Reads == 0 {
		warns = append(warns, nothingChecked)
	}
	j := newJudge(col, opts)
	rp := col.replay
	col.replay = nil
	err := j.scan(rp)
	if err != nil {
		return Result{}, err
	}
	j.finish()
	return j.result(append(warns, j.warnings()...)), nil
}

// nothingChecked warns that a history gave the checker nothing to judge:
// every detector needs an acknowledged send or a record read, so "valid"
// would only mean "no evidence either way". Jepsen calls such a history
// invalid (:empty-transaction-graph); here it stays valid, so that exit 1 of
// kafkachaos check keeps meaning "anomalies found", and says why.
const nothingChecked = "nothing was checked: no acknowledged send and no read (valid only because there is no evidence)"

// judge is pass 2: it replays the history against the sealed version orders
// and feeds each op to every per-op detector. It runs as a pipeline over the
// replay's batches: one goroutine decodes a batch, this one resolves its
// ops' views (opview.go), and the detectors read the views in two lanes of
// about equal cost on two goroutines more. Pass 2 only reads the sealed
// orders, and no two detectors share state. Each lane has its own sink; no
// anomaly is found in both (cases.go keeps cases by anomaly), so merging
// them gives the serial run's result.
type judge struct {
	col      *collector
	sink     *caseSink // lane a's, and the merged result
	sinkB    *caseSink
	a, b     lane
	nextNode int32

	// Ops whose rebalance-log could not be read, counted so that one
	// warning covers them all, naming the first.
	badRebalance      int64
	firstBadRebalance string

	polls    *pollOrder
	sends    *sendOrder
	txns     *txnReads
	torn     *tornTxns
	graph    *depGraph
	delivery *delivery
	evidence *evidence
	early    *earlyReaders
}

// visitor is a per-op detector.
type visitor interface{ visit(*opView) }

// lane is the detectors one goroutine feeds.
type lane []visitor

func newJudge(col *collector, opts Options) *judge {
	sink, sinkB := newCaseSink(opts.MaxCases), newCaseSink(opts.MaxCases)
	j := &judge{
		col:      col,
		sink:     sink,
		sinkB:    sinkB,
		polls:    newPollOrder(sink, opts),
		sends:    newSendOrder(sink),
		txns:     &txnReads{sink: sink},
		torn:     newTornTxns(sink),
		graph:    newDepGraph(col, opts),
		delivery: newDelivery(sinkB),
		evidence: newEvidence(),
		early:    newEarlyReaders(),
	}
	j.a = lane{j.polls, j.sends, j.txns, j.torn}
	j.b = lane{j.graph, j.delivery, j.evidence, j.early}
	return j
}

// viewBatch is a replay batch's ops resolved once for both lanes.
type viewBatch struct {
	views   []opView
	pending atomic.Int32 // lanes still reading it
	release func()       // hands the replay batch back
}

// viewBatches in flight: one being resolved, one read by the lanes.
const viewBatches = 2

// scan runs the pipeline over the replay; every goroutine it starts has
// ended when it returns.
func (j *judge) scan(rp *replay) error {
	free := make(chan *viewBatch, viewBatches)
	for range viewBatches {
		free <- &viewBatch{}
	}
	var wg sync.WaitGroup
	var ins []chan *viewBatch
	for _, l := range []lane{j.a, j.b} {
		in := make(chan *viewBatch, viewBatches)
		ins = append(ins, in)
		wg.Go(func() {
			for vb := range in {
				l.visitAll(vb.views)
				if vb.pending.Add(-1) == 0 {
					vb.release()
					free <- vb
				}
			}
		})
	}
	err := rp.ScanBatches(func(ops []histories.Op, release func()) error {
		vb := <-free
		j.resolveAll(vb, ops)
		vb.release = release
		vb.pending.Store(int32(len(ins)))
		for _, in := range ins {
			in <- vb
		}
		return nil
	})
	for _, in := range ins {
		close(in)
	}
	wg.Wait()
	return err
}

// bigView is the capacity past which a view's reads are not kept for the
// next batch: a final read resolves every record of the history.
const bigView = 1 << 16

// resolveAll fills vb with the views of the ops pass 2 judges.
func (j *judge) resolveAll(vb *viewBatch, ops []histories.Op) {
	vb.views = vb.views[:0]
	for i := range ops {
		op := &ops[i]
		if !op.IsClient() || op.Type == histories.Invoke || !isClientF(op.F) {
			continue
		}
		node := int32(-1)
		if isGraphNode(op) {
			node = j.nextNode
			j.nextNode++
		}
		if len(vb.views) < cap(vb.views) {
			vb.views = vb.views[:len(vb.views)+1]
		} else {
			vb.views = append(vb.views, opView{})
		}
		v := &vb.views[len(vb.views)-1]
		if cap(v.reads) > bigView {
			v.reads = nil
		}
		if w := v.resolve(op, j.col.keys, node); w != "" {
			if j.badRebalance == 0 {
				j.firstBadRebalance = w
			}
			j.badRebalance++
		}
	}
}

func (l lane) visitAll(views []opView) {
	for i := range views {
		for _, d := range l {
			d.visit(&views[i])
		}
	}
}

// warnings are pass 2's warnings, one per kind whatever the number of ops.
func (j *judge) warnings() []string {
	var out []string
	if j.badRebalance > 0 {
		out = append(out, fmt.Sprintf("%d ops have a rebalance-log that is not a JSON list of {\"keys\": [...]}, so their keys are not reset; the first: %s", j.badRebalance, j.firstBadRebalance))
	}
	return out
}

func (j *judge) finish() {
	reportLogCases(j.col, j.evidence, j.sink)
	reportLostWrites(j.col, j.evidence, j.sink)
	reportLostAfterRead(j.col, j.early, j.sink)
	j.delivery.finish(j.col)
	j.graph.finish(j.sinkB)
	j.sink.merge(j.sinkB)
}

func (j *judge) result(warns []string) Result {
	types := j.sink.types()
	return Result{
		Valid:        len(types) == 0,
		AnomalyTypes: types,
		Anomalies:    j.sink.cases,
		Counts:       j.sink.counts,
		Stats:        j.col.stats,
		Liveness:     j.col.liveness(),
		Warnings:     warns,
	}
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }
