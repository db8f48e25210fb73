package checkers

import (
	"fmt"
	"strconv"

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
// and feeds each op to every per-op detector. The detectors are split into
// two lanes of about equal cost, each on its own goroutine with its own view
// of the op: pass 2 only reads the sealed orders, and no two detectors share
// state. Each lane has its own sink; no anomaly is found in both (cases.go
// keeps cases by anomaly), so merging them gives the serial run's result.
type judge struct {
	col   *collector
	sink  *caseSink // lane a's, and the merged result
	sinkB *caseSink
	a, b  lane

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

// lane feeds one goroutine's detectors.
type lane struct {
	keys      map[int64]*keyState
	view      opView
	nextNode  int32
	detectors []visitor

	// Ops whose rebalance-log could not be read, counted so that one
	// warning covers them all, naming the first.
	badRebalance      int64
	firstBadRebalance string
}

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
	j.a = lane{keys: col.keys, detectors: []visitor{j.polls, j.sends, j.txns, j.torn}}
	j.b = lane{keys: col.keys, detectors: []visitor{j.graph, j.delivery, j.evidence, j.early}}
	return j
}

// scan runs the lanes over the replay, batch by batch: lane b on a
// goroutine, lane a on this one, both done with a batch before the next.
func (j *judge) scan(rp *replay) error {
	batches, done := make(chan []histories.Op), make(chan struct{})
	defer close(batches)
	go func() {
		for ops := range batches {
			j.b.visitAll(ops)
			done <- struct{}{}
		}
	}()
	return rp.ScanBatches(func(ops []histories.Op) error {
		batches <- ops
		j.a.visitAll(ops)
		<-done
		return nil
	})
}

func (l *lane) visitAll(ops []histories.Op) {
	for i := range ops {
		l.visit(&ops[i])
	}
}

func (l *lane) visit(op *histories.Op) {
	if !op.IsClient() || op.Type == histories.Invoke || !isClientF(op.F) {
		return
	}
	node := int32(-1)
	if isGraphNode(op) {
		node = l.nextNode
		l.nextNode++
	}
	if w := l.view.resolve(op, l.keys, node); w != "" {
		if l.badRebalance == 0 {
			l.firstBadRebalance = w
		}
		l.badRebalance++
	}
	for _, d := range l.detectors {
		d.visit(&l.view)
	}
}

// warnings are pass 2's warnings, one per kind whatever the number of ops
// (both lanes read every op, so lane a's count is the count).
func (j *judge) warnings() []string {
	var out []string
	if j.a.badRebalance > 0 {
		out = append(out, fmt.Sprintf("%d ops have a rebalance-log that is not a JSON list of {\"keys\": [...]}, so their keys are not reset; the first: %s", j.a.badRebalance, j.a.firstBadRebalance))
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
