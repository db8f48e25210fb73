package client

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/histories"
)

// closeSignal closes closed once the wrapped handle's Close has returned:
// the detached close of a crashed consumer, which the test waits for.
type closeSignal struct {
	consumerHandle
	closed chan struct{}
}

func (c *closeSignal) Close() error {
	defer close(c.closed)
	return c.consumerHandle.Close()
}

// A crashed KIP-848 member (group.protocol=consumer) that auto-commits is
// made to leave at its coordinator before its handle closes, so the close
// commits none of the offsets it stored: the group has no committed offset
// and the crash op says fenced. The control: the same crash without a
// fencer commits them on its way out, which is what the fence prevents.
func TestGroupProtocolConsumerCrashIsFenced(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fence bool
	}{{"fenced", true}, {"unfenced", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := startCluster(t, 1)
			rec := NewMemRecorder()
			procs := &Processes{}
			produce(t, e, rec, procs, 0, 10)
			sig := &closeSignal{closed: make(chan struct{})}
			opts := ConsumerOptions{Bootstrap: e.Bootstrap(), Keys: SequentialKeys("t", 1), Recorder: rec, Process: procs.Next(),
				// no auto-commit in the test's time: only the close could commit
				Config: ConsumerConfig{Commit: CommitAuto, AutoCommitEach: time.Hour, GroupProtocol: GroupConsumer},
				wrap:   func(kc consumerHandle) consumerHandle { sig.consumerHandle = kc; return sig }}
			if tc.fence {
				opts.Fencer = e
			}
			a := subscribe(t, opts)
			pollUntil(t, a, rec, func(v []int64) bool { return len(v) > 0 })
			read := len(polled(rec.Ops(), a.Process(), 0))
			if err := a.Crash(CrashAnywhere); err != nil {
				t.Fatal(err)
			}
			select {
			case <-sig.closed:
			case <-time.After(30 * time.Second):
				t.Fatal("the crashed consumer's close did not return in 30s")
			}
			var v crashValue
			for _, o := range clienttest.OpsOf(rec.Ops(), a.Process()) {
				if o.F == histories.FCrash {
					if err := json.Unmarshal(o.Value, &v); err != nil {
						t.Fatal(err)
					}
				}
			}
			if v.Fenced != tc.fence {
				t.Fatalf("crash op %+v: want fenced %v", v, tc.fence)
			}
			committed, ok := groupCommitted(t, e, 1)[0]
			switch {
			case tc.fence && ok:
				t.Errorf("fenced: the crashed member's close committed offset %d", committed)
			case !tc.fence && committed != int64(read):
				t.Errorf("unfenced: committed %d (present %v), want the close to commit %d, past the records read: the control shows nothing",
					committed, ok, read)
			}
		})
	}
}
