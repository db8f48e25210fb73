package kproxy

import (
	"fmt"
	"sort"
	"time"
)

// Outlived is a transaction's request still unanswered when the
// transaction ended: an EndTxn of the same producer id and epoch, sent
// after it, was answered without error before it was, or it was never
// answered (its client gave it up and closed the connection, and the
// proxy may still have let it through). Under transaction version 1
// nothing in such a request says which transaction it was sent in, so a
// broker that takes it may count it in the producer's next transaction
// (KAFKA-17754). Answer says what the broker did with it, where the log
// knows; whether an unanswered one landed, the history says.
type Outlived struct {
	Exchange
	// End is the EndTxn that ended the request's transaction.
	End Exchange
}

// Answer is what the broker said to the late request: "accepted" when no
// partition or top-level error came back, else the first error;
// "unanswered" when no response reached the proxy.
func (o Outlived) Answer() string {
	r := o.Response
	if r == nil {
		return "unanswered"
	}
	if r.Error != "" {
		return r.Error
	}
	for _, p := range r.Partitions {
		if p.Error != "" {
			return p.Error
		}
	}
	return "accepted"
}

// String says what the late request was and what became of it, for a
// report line: API, producer id and epoch, how long after its
// transaction's end it was answered, and the answer.
func (o Outlived) String() string {
	pid, epoch, _ := producerOf(o.Request)
	if o.Response == nil {
		return fmt.Sprintf("%s of %d/%d sent %v before its transaction's %s: unanswered", o.Request.API, pid, epoch,
			o.End.Request.Time.Sub(o.Request.Time).Round(time.Millisecond), endWord(o.End.Request))
	}
	return fmt.Sprintf("%s of %d/%d answered %v after its transaction's %s: %s", o.Request.API, pid, epoch,
		o.Response.Time.Sub(o.End.Response.Time).Round(time.Millisecond), endWord(o.End.Request), o.Answer())
}

func endWord(e Entry) string {
	if e.Commit != nil && *e.Commit {
		return "commit"
	}
	return "abort"
}

// txnAPI says api is a request a transaction sends on its producer id
// and epoch.
func txnAPI(api string) bool {
	switch api {
	case "Produce", "AddPartitionsToTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "EndTxn":
		return true
	}
	return false
}

// producerOf is the producer id and epoch a request is sent on: its own,
// or for Produce its first transactional batch's.
func producerOf(e Entry) (int64, int16, bool) {
	if e.PID != nil && e.Epoch != nil {
		return *e.PID, *e.Epoch, true
	}
	for _, p := range e.Partitions {
		if p.PID != nil && p.Epoch != nil && p.Transactional != nil && *p.Transactional {
			return *p.PID, *p.Epoch, true
		}
	}
	return 0, 0, false
}

// OutlivedTxn returns the exchanges of xs (Exchanges' order) still
// unanswered when their transaction ended (see Outlived).
func OutlivedTxn(xs []Exchange) []Outlived {
	type producer struct {
		pid   int64
		epoch int16
	}
	ends := map[producer][]Exchange{}
	for _, x := range xs {
		if pid, epoch, ok := producerOf(x.Request); ok && x.Request.API == "EndTxn" && x.Response != nil && x.Response.Error == "" {
			ends[producer{pid, epoch}] = append(ends[producer{pid, epoch}], x)
		}
	}
	for _, es := range ends {
		sort.Slice(es, func(i, j int) bool { return es[i].Response.Time.Before(es[j].Response.Time) })
	}
	var out []Outlived
	for _, x := range xs {
		pid, epoch, ok := producerOf(x.Request)
		if !ok || !txnAPI(x.Request.API) {
			continue
		}
		for _, e := range ends[producer{pid, epoch}] {
			if x.Response != nil && !e.Response.Time.Before(x.Response.Time) {
				break
			}
			if e.Request.Time.After(x.Request.Time) {
				out = append(out, Outlived{Exchange: x, End: e})
				break
			}
		}
	}
	return out
}

// LateCounts counts outlived requests by API and answer, as "Produce
// accepted" or "Produce INVALID_PRODUCER_EPOCH".
func LateCounts(late []Outlived) map[string]int64 {
	if len(late) == 0 {
		return nil
	}
	n := map[string]int64{}
	for _, o := range late {
		n[o.Request.API+" "+o.Answer()]++
	}
	return n
}
