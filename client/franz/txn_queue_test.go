package franz

import (
	"context"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// txnRig is an embedded cluster with topic t of four partitions, keys
// 0-3, and the history the test's queues record.
type txnRig struct {
	t     *testing.T
	e     *embedded.Provider
	keys  *client.KeyMap
	rec   *client.MemRecorder
	procs client.Processes
}

func newTxnRig(t *testing.T) *txnRig {
	t.Helper()
	e := embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "t", Partitions: 4}}})
	return &txnRig{t: t, e: e, keys: client.SequentialKeys("t", 4), rec: client.NewMemRecorder()}
}

// queue opens a franz-go queue with transactional id id, changed by edit;
// it is closed when the test ends.
func (r *txnRig) queue(id string, edit func(*client.TxnQueueOptions)) *TxnQueue {
	r.t.Helper()
	opts := client.TxnQueueOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, TransactionalID: id, Seed: 3,
		CallTimeout: 5 * time.Second, Recorder: r.rec, Process: r.procs.Next()}
	edit(&opts)
	q, err := NewTxnQueue(r.t.Context(), opts)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(q.Close)
	return q
}

// Queue, Ops and Finish make the rig a clienttest.QueueRig.
func (r *txnRig) Queue(id string, abort float64, seed int64) clienttest.TxnQueue {
	return r.queue(id, func(o *client.TxnQueueOptions) { o.AbortProbability, o.Seed = abort, seed })
}

func (r *txnRig) Ops() []histories.Op { return r.rec.Ops() }

// Finish reads every key back read_committed (librdkafka) and returns
// the values those final reads hold, after checking that the history is
// paired and the checker finds nothing.
func (r *txnRig) Finish() map[int64]bool {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := client.FinalReads(ctx, client.FinalReadOptions{Bootstrap: r.e.Bootstrap(), Keys: r.keys, Recorder: r.rec,
		Process: r.procs.Next(), ReadCommitted: true})
	if err != nil {
		r.t.Fatal(err)
	}
	ops := r.rec.Ops()
	clienttest.CheckPaired(r.t, ops)
	clienttest.CheckClean(r.t, ops)
	return clienttest.FinalValues(ops, client.FinalExtra)
}

func countTxns(ops []histories.Op, typ histories.Type) int {
	n := 0
	for _, o := range ops {
		if o.F == histories.FTxn && o.Type == typ {
			n++
		}
	}
	return n
}

// franz-go queues read only committed values (clienttest).
func TestFranzTxnQueueReadsOnlyCommitted(t *testing.T) {
	clienttest.CheckQueueReadsOnlyCommitted(t, newTxnRig(t))
}

// A crashed franz-go queue's transaction stays invisible once its
// successor fences it (clienttest).
func TestFranzTxnQueueCrashTakeover(t *testing.T) {
	clienttest.CheckQueueCrashTakeover(t, newTxnRig(t), client.ErrCrashed)
}
