package kproxy

import (
	"maps"
	"testing"
	"time"
)

// A late request must be found, with its answer, whatever API it is; an
// answer before the end, or a request of the next transaction, must not.
func TestOutlivedTxn(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	x := func(req Entry, sent, answered int, resp Entry) Exchange {
		req.Time, resp.Time = at(sent), at(answered)
		return Exchange{Request: req, Response: &resp}
	}
	txnBatch := func(pid int64, epoch int16, txn bool) Entry {
		return Entry{API: "Produce", Partitions: []Partition{{Topic: "t", PID: ptr(pid), Epoch: ptr(epoch), Transactional: ptr(txn)}}}
	}
	end := func(pid int64, epoch int16, commit bool) Entry {
		return Entry{API: "EndTxn", PID: ptr(pid), Epoch: ptr(epoch), Commit: ptr(commit)}
	}
	appended := Entry{Partitions: []Partition{{Topic: "t", Offset: ptr(int64(7))}}}
	fenced := Entry{Partitions: []Partition{{Topic: "t", Error: "INVALID_PRODUCER_EPOCH"}}}
	for _, tc := range []struct {
		name string
		xs   []Exchange
		want []string // Outlived.String of each, in order
	}{
		{"a batch held past its transaction's abort, accepted", []Exchange{
			x(txnBatch(5, 0, true), 0, 9000, appended), x(end(5, 0, false), 5000, 5100, Entry{})},
			[]string{"Produce of 5/0 answered 3.9s after its transaction's abort: accepted"}},
		{"refused by the broker", []Exchange{
			x(txnBatch(5, 0, true), 0, 9000, fenced), x(end(5, 0, false), 5000, 5100, Entry{})},
			[]string{"Produce of 5/0 answered 3.9s after its transaction's abort: INVALID_PRODUCER_EPOCH"}},
		{"an EndTxn outlived by its own retry", []Exchange{
			x(end(5, 0, true), 0, 8000, Entry{Error: "INVALID_TXN_STATE"}), x(end(5, 0, true), 3000, 3100, Entry{})},
			[]string{"EndTxn of 5/0 answered 4.9s after its transaction's commit: INVALID_TXN_STATE"}},
		{"an EndTxn refused ends nothing", []Exchange{
			x(txnBatch(5, 0, true), 0, 9000, appended), x(end(5, 0, true), 3000, 3100, Entry{Error: "CONCURRENT_TRANSACTIONS"})}, nil},
		{"answered before the end: not late", []Exchange{
			x(txnBatch(5, 0, true), 0, 100, appended), x(end(5, 0, true), 200, 300, Entry{})}, nil},
		{"sent after the EndTxn, so in the next transaction of the same epoch: not late", []Exchange{
			x(end(5, 0, true), 0, 100, Entry{}), x(txnBatch(5, 0, true), 50, 9000, appended)}, nil},
		{"another epoch's end: not late", []Exchange{
			x(txnBatch(5, 0, true), 0, 9000, appended), x(end(5, 1, false), 5000, 5100, Entry{})}, nil},
		{"an idempotent, not transactional, batch: not late", []Exchange{
			x(txnBatch(5, 0, false), 0, 9000, appended), x(end(5, 0, false), 5000, 5100, Entry{})}, nil},
		{"never answered, its transaction ended after it was sent", []Exchange{
			{Request: Entry{Time: at(0), API: "Produce", Partitions: txnBatch(5, 0, true).Partitions}}, x(end(5, 0, false), 5000, 5100, Entry{})},
			[]string{"Produce of 5/0 sent 5s before its transaction's abort: unanswered"}},
		{"never answered, sent after the last end: not late", []Exchange{
			x(end(5, 0, false), 0, 100, Entry{}), {Request: Entry{Time: at(50), API: "Produce", Partitions: txnBatch(5, 0, true).Partitions}}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := OutlivedTxn(tc.xs)
			if len(got) != len(tc.want) {
				t.Fatalf("%d outlived, want %d: %v", len(got), len(tc.want), got)
			}
			for i, o := range got {
				if o.String() != tc.want[i] {
					t.Errorf("got %q\nwant %q", o.String(), tc.want[i])
				}
			}
		})
	}
}

func TestLateCounts(t *testing.T) {
	ok := Outlived{Exchange: Exchange{Request: Entry{API: "Produce"}, Response: &Entry{}}}
	bad := Outlived{Exchange: Exchange{Request: Entry{API: "Produce"}, Response: &Entry{Error: "INVALID_TXN_STATE"}}}
	got := LateCounts([]Outlived{ok, bad, ok})
	if want := map[string]int64{"Produce INVALID_TXN_STATE": 1, "Produce accepted": 2}; !maps.Equal(got, want) {
		t.Errorf("LateCounts = %v, want %v", got, want)
	}
	if LateCounts(nil) != nil {
		t.Error("no late requests counted as some")
	}
}
