package sim

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// An EndTxn commit answered UNKNOWN_SERVER_ERROR leaves the commit
// unconfirmed (kgo then ends it "as an abort" that sends nothing, and End
// says not committed without an error): the copier's txn op is info, never
// fail. Transactions aborted on purpose stay fail.
func TestCopierUnconfirmedCommitIsInfo(t *testing.T) {
	s := copying(model.ReadCommitted)
	s.Nemesis = nil
	var p Played
	var err error
	synctest.Test(t, func(*testing.T) {
		p, err = play1(s, nil, func(c *cluster) {
			c.fake.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.EndTxn}, Err: kerr.UnknownServerError, Count: 3,
				When: func(req kmsg.Request) bool { return req.(*kmsg.EndTxnRequest).Commit }})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	var unconfirmed, wrong int
	scan(t, p.History, func(op *histories.Op) {
		if op.F != histories.FTxn || op.Type == histories.Invoke {
			return
		}
		if op.Type == histories.Info && bytes.Contains([]byte(op.Error), []byte("unconfirmed")) {
			unconfirmed++
		}
		if op.Type == histories.Fail && op.Error != "aborted on purpose" {
			wrong++
			t.Errorf("txn op %d: fail %q: the commit's outcome was not known", op.Index, op.Error)
		}
	})
	if unconfirmed != 3 || wrong > 0 {
		t.Fatalf("%d txn ops info as unconfirmed, want 3 (one per faulted EndTxn); %d fail without an abort on purpose", unconfirmed, wrong)
	}
}

func scan(t *testing.T, history []byte, f func(*histories.Op)) {
	t.Helper()
	err := histories.NewReader(bytes.NewReader(history), "history").Scan(func(op *histories.Op) error {
		f(op)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Final reads of transactional topics go on until they reach every key's
// end, however slowly the cluster answers: with every fetch held 5 s, a
// reader that stopped after a few empty polls would call the copies it
// never fetched lost.
func TestFinalReadsReachTheEnd(t *testing.T) {
	s := copying(model.ReadCommitted)
	s.Nemesis = nil
	var p Played
	var err error
	synctest.Test(t, func(*testing.T) {
		p, err = play1(s, nil, func(c *cluster) {
			c.install(&requestFault{keys: []int16{int16(kmsg.Fetch)}, delay: 5 * time.Second})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := Check(s, p)
	if err != nil {
		t.Fatal(err)
	}
	final := 0
	scan(t, p.History, func(op *histories.Op) {
		if op.Type == histories.OK && op.F == histories.FPoll && op.Extra["final"] != nil {
			for _, m := range op.Mops {
				for _, rs := range m.Records {
					final += len(rs)
				}
			}
		}
	})
	if final == 0 || !v.Held || len(v.Result.Counts) > 0 {
		t.Fatalf("final reads under slow fetches read %d records; held %v, anomalies %v", final, v.Held, v.Result.Counts)
	}
}

// Final reads that cannot reach a key's end (every fetch dropped) say so,
// naming the keys, rather than ending as if they had read everything.
func TestFinalReadsSayWhenShort(t *testing.T) {
	s := copying(model.ReadCommitted)
	s.Nemesis = nil
	var err error
	synctest.Test(t, func(*testing.T) {
		_, err = play1(s, nil, func(c *cluster) {
			c.install(&requestFault{keys: []int16{int16(kmsg.Fetch)},
				act: func() (kmsg.Response, error, bool) { return nil, errDropped, true }})
		})
	})
	if err == nil || !strings.Contains(err.Error(), "short of the end of key 0 (read to 0 of ") {
		t.Fatalf("final reads with every fetch dropped: err %v, want one naming the keys not read to their end", err)
	}
}
