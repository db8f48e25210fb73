package sim

import (
	"bytes"
	"testing"
	"testing/synctest"

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
