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
	if err := rp.Scan(j.visit); err != nil {
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
// and feeds each op to every per-op detector.
type judge struct {
	col      *collector
	sink     *caseSink
	view     opView
	nextNode int32
	ops      int64

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

func newJudge(col *collector, opts Options) *judge {
	sink := newCaseSink(opts.MaxCases)
	return &judge{
		col:      col,
		sink:     sink,
		polls:    newPollOrder(sink, opts),
		sends:    newSendOrder(sink),
		txns:     &txnReads{sink: sink},
		torn:     newTornTxns(sink),
		graph:    newDepGraph(col, opts),
		delivery: newDelivery(sink),
		evidence: newEvidence(),
		early:    newEarlyReaders(),
	}
}

func (j *judge) visit(op *histories.Op) error {
	j.ops++
	if !op.IsClient() || op.Type == histories.Invoke || !isClientF(op.F) {
		return nil
	}
	node := int32(-1)
	if isGraphNode(op) {
		node = j.nextNode
		j.nextNode++
	}
	if w := j.view.resolve(op, j.col.keys, node); w != "" {
		if j.badRebalance == 0 {
			j.firstBadRebalance = w
		}
		j.badRebalance++
	}
	v := &j.view
	j.polls.visit(v)
	j.sends.visit(v)
	j.txns.visit(v)
	j.torn.visit(v)
	j.graph.visit(v)
	j.delivery.visit(v)
	j.evidence.visit(v)
	j.early.visit(v)
	return nil
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
	j.graph.finish(j.sink)
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
