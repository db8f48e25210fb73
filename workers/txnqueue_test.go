package workers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/client/java"
	"github.com/kafkachaos/kafkachaos/client/java/javatest"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
)

// queueScenario has two txn queues over keys 0-1 of "in", beside one
// producer, aborting a third of their transactions. (Keys 2-3 of "out"
// are left over from the copy scenario: its cluster has both topics.)
func queueScenario() generators.Scenario {
	s := copyScenario()
	s.Name = "queue"
	s.Producer.TransactionalID = "queue"
	s.Workload.Copiers, s.Workload.TxnQueues, s.Workload.TxnSize, s.Workload.AbortRatio = 0, 2, 4, 0.3
	return s
}

// A queue's transactions are one to txn-size mops; their sends go to
// distinct input keys with values no other send has; once max-values is
// spent they only poll.
func TestTxnQueuePlans(t *testing.T) {
	s := queueScenario()
	s.Workload.MaxValues = 100
	w, err := New(s, Options{Bootstrap: "127.0.0.1:1", Recorder: client.NewMemRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	slot := w.TxnQueues()[1]
	seen := map[int64]bool{}
	sizes := map[int]bool{}
	for range 200 {
		plan := slot.plan()
		sizes[len(plan)] = true
		keys := map[histories.Key]bool{}
		for _, m := range plan {
			if m.F == histories.MPoll {
				continue
			}
			if keys[m.Key] || m.Key < 0 || m.Key >= histories.Key(s.Keys.Count) || seen[m.Value] || m.Value > 100 {
				t.Fatalf("plan %+v: a send to a key out of range or sent twice, or a value sent before or past max-values", plan)
			}
			keys[m.Key], seen[m.Value] = true, true
		}
	}
	for n := 1; n <= s.Workload.TxnSize; n++ {
		if !sizes[n] {
			t.Errorf("no plan of %d mops in 200 (sizes %v)", n, sizes)
		}
	}
	if len(sizes) != s.Workload.TxnSize || len(seen) != 100 {
		t.Fatalf("plan sizes %v, %d values sent: want 1..%d mops and every value of max-values", sizes, len(seen), s.Workload.TxnSize)
	}
}

// A queue crashed at the run's end leaves its transaction open; Stop
// fences it with a successor of the same transactional.id, so that
// read_committed final reads are not held back until it times out. The
// slot runs the client the scenario names for its txn-queue role.
func TestStopFencesACrashedQueue(t *testing.T) {
	for _, c := range []struct {
		client string
		is     func(TxnQueueClient) bool
	}{
		{generators.ClientLibrdkafka, func(q TxnQueueClient) bool { _, ok := q.(*client.TxnQueue); return ok }},
		{generators.ClientJava, func(q TxnQueueClient) bool { _, ok := q.(*java.TxnQueue); return ok }},
	} {
		t.Run(c.client, func(t *testing.T) {
			s := queueScenario()
			s.Workload.TxnQueues, s.Workload.AbortRatio = 1, 0
			if c.client == generators.ClientJava {
				javatest.NeedJDK(t)
				s.Clients = map[string]string{generators.RoleTxnQueue: generators.ClientJava}
			}
			stopFencesACrashedQueue(t, s, c.is)
		})
	}
}

func stopFencesACrashedQueue(t *testing.T, s generators.Scenario, is func(TxnQueueClient) bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e := embeddedtest.StartScenario(t, s)
	rec := client.NewMemRecorder()
	w, err := New(s, Options{Bootstrap: e.Bootstrap(), Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	slot := w.TxnQueues()[0]
	slot.done = make(chan struct{})
	close(slot.done) // its worker has returned
	q, err := slot.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !is(q) {
		t.Fatalf("the slot opened a %T, not the scenario's client %s", q, s.ClientOf(generators.RoleTxnQueue))
	}
	if typ, err := q.Step(ctx, []histories.Mop{histories.Send(0, 1)}, 10, 0); typ != histories.OK {
		t.Fatalf("step: %s %v", typ, err)
	}
	if got, err := slot.Crash(); got != q || err != nil {
		t.Fatalf("crash: %v %v", got, err)
	}
	if _, err := q.Step(ctx, []histories.Mop{histories.Send(1, 2)}, 10, 0); !errors.Is(err, client.ErrCrashed) || !q.NeedsFencing() {
		t.Fatalf("step: %v, needs fencing %v; want a crashed queue to fence", err, q.NeedsFencing())
	}
	w.Stop(ctx)
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	if next := slot.Current(); next == q {
		t.Fatal("Stop opened no successor to fence the crashed queue")
	}
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	defer rcancel()
	err = client.FinalReads(rctx, client.FinalReadOptions{Bootstrap: e.Bootstrap(), Keys: w.all, Recorder: rec,
		Process: w.NextProcess(), ReadCommitted: true})
	if err != nil {
		t.Fatalf("read_committed final reads after Stop: %v", err)
	}
}

// A fault that reaches a queue slot before its first queue opened is told
// so rather than acting on nothing.
func TestCrashOfAnEmptyQueueSlotFindsNothing(t *testing.T) {
	if q, err := (&TxnQueueSlot{}).Crash(); q != nil || err != ErrNothingToCrash {
		t.Errorf("txn queue slot: %v, %v", q, err)
	}
}
