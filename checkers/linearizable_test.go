package checkers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// linHist builds histories for the linearizability tests.
type linHist struct{ ops []histories.Op }

// Scan makes a linHist a source of CheckLinearizable.
func (h *linHist) Scan(f func(*histories.Op) error) error {
	for i := range h.ops {
		if err := f(&h.ops[i]); err != nil {
			return err
		}
	}
	return nil
}

func (h *linHist) add(p, t int64, typ histories.Type, f string, mops ...histories.Mop) *linHist {
	h.ops = append(h.ops, histories.Op{Index: int64(len(h.ops)), Time: t, Process: p, Type: typ, F: f, Mops: mops})
	return h
}

// send runs a send of v to key k from p over [call, ret] with outcome typ;
// off is the offset an ok send learned (NoOffset when it did not).
func (h *linHist) send(p, call, ret int64, typ histories.Type, k, v, off int64) *linHist {
	h.add(p, call, histories.Invoke, histories.FSend, histories.Send(k, v))
	return h.add(p, ret, typ, histories.FSend, histories.Mop{F: histories.MSend, Key: k, Value: v, Offset: off})
}

// poll runs an ok poll of key k from p over [call, ret] returning recs, as
// offset, value pairs.
func (h *linHist) poll(p, call, ret int64, k int64, recs ...[2]int64) *linHist {
	rs := make([]histories.Record, len(recs))
	for i, r := range recs {
		rs[i] = histories.Record{Offset: r[0], Value: r[1]}
	}
	h.add(p, call, histories.Invoke, histories.FPoll, histories.Mop{F: histories.MPoll})
	return h.add(p, ret, histories.OK, histories.FPoll, histories.Mop{F: histories.MPoll, Records: map[int64][]histories.Record{k: rs}})
}

const (
	linOK   = histories.OK
	linFail = histories.Fail
	linInfo = histories.Info
	linNone = histories.NoOffset
)

func checkLin(t *testing.T, h *linHist, opts LinOptions) LinResult {
	t.Helper()
	res, err := CheckLinearizable(h, opts)
	if err != nil {
		t.Fatalf("CheckLinearizable: %v", err)
	}
	return res
}

// outcomes renders a result as "key:outcome ..." for compact assertions.
func linOutcomes(r LinResult) string {
	var parts []string
	for _, k := range r.Keys {
		parts = append(parts, fmt.Sprintf("%d:%s", k.Key, k.Outcome))
	}
	return strings.Join(parts, " ")
}

func linWant(t *testing.T, h *linHist, want string) LinResult {
	t.Helper()
	res := checkLin(t, h, LinOptions{})
	if got := linOutcomes(res); got != want {
		t.Fatalf("outcomes %q, want %q (%+v)", got, want, res.Keys)
	}
	if res.Valid != !strings.Contains(want, string(LinIllegal)) {
		t.Fatalf("Valid = %v for %q", res.Valid, want)
	}
	return res
}

// TestLinConcurrentCorrectHistory: two producers race on key 1 (the later
// invoked one wins offset 0), a third key-2 producer, and consumers that read
// slices of the logs while sends are in flight.
func TestLinConcurrentCorrectHistory(t *testing.T) {
	h := new(linHist).
		send(1, 0, 50, linOK, 1, 10, 1).
		send(2, 10, 40, linOK, 1, 20, 0).
		send(3, 5, 15, linOK, 2, 7, 0).
		poll(4, 30, 45, 1, [2]int64{0, 20}).
		send(1, 60, 70, linOK, 1, 30, 2).
		poll(4, 65, 90, 1, [2]int64{1, 10}, [2]int64{2, 30}).
		poll(5, 80, 95, 2, [2]int64{0, 7})
	linWant(t, h, "1:ok 2:ok")
}

// TestLinReadContradictsAck: acknowledged at 5, read at 5 with another value.
func TestLinReadContradictsAck(t *testing.T) {
	base := func() *linHist {
		return new(linHist).send(1, 0, 10, linOK, 1, 10, 5).send(1, 20, 30, linOK, 1, 11, 6)
	}
	linWant(t, base().poll(2, 40, 50, 1, [2]int64{5, 10}, [2]int64{6, 11}), "1:ok")
	linWant(t, base().poll(2, 40, 50, 1, [2]int64{5, 11}), "1:illegal")
	linWant(t, base().poll(2, 40, 50, 1, [2]int64{6, 10}), "1:illegal")
}

// TestLinReadFromTheFuture: a poll that finished before a send was invoked
// cannot have read it; a concurrent one can.
func TestLinReadFromTheFuture(t *testing.T) {
	linWant(t, new(linHist).poll(2, 0, 10, 1, [2]int64{0, 10}).send(1, 20, 30, linOK, 1, 10, 0), "1:illegal")
	linWant(t, new(linHist).poll(2, 0, 25, 1, [2]int64{0, 10}).send(1, 20, 30, linOK, 1, 10, 0), "1:ok")
}

// TestLinReadSkipsAckedRecord: a read must be a contiguous slice of the log,
// but offsets may have gaps where nothing was written (an aborted record).
func TestLinReadSkipsAckedRecord(t *testing.T) {
	three := func(middle histories.Type) *linHist {
		return new(linHist).send(1, 0, 10, linOK, 1, 1, 0).send(1, 20, 30, middle, 1, 2, 1).send(1, 40, 50, linOK, 1, 3, 2)
	}
	linWant(t, three(linOK).poll(2, 60, 70, 1, [2]int64{0, 1}, [2]int64{2, 3}), "1:illegal")
	linWant(t, three(linFail).poll(2, 60, 70, 1, [2]int64{0, 1}, [2]int64{2, 3}), "1:ok")
	// Offsets may jump: 0 then 2 with nothing at 1.
	gap := new(linHist).send(1, 0, 10, linOK, 1, 1, 0).send(1, 20, 30, linOK, 1, 3, 2)
	linWant(t, gap.poll(2, 60, 70, 1, [2]int64{0, 1}, [2]int64{2, 3}), "1:ok")
}

// TestLinInfoSends: an info send may or may not have happened; both
// linearize. One that a read saw happened before that read.
func TestLinInfoSends(t *testing.T) {
	happened := new(linHist).
		send(1, 0, 10, linInfo, 1, 10, linNone).
		send(2, 20, 30, linOK, 1, 11, 1).
		poll(3, 40, 50, 1, [2]int64{0, 10}, [2]int64{1, 11})
	linWant(t, happened, "1:ok")
	didNot := new(linHist).
		send(1, 0, 10, linInfo, 1, 10, linNone).
		send(2, 20, 30, linOK, 1, 11, 0).
		poll(3, 40, 50, 1, [2]int64{0, 11})
	linWant(t, didNot, "1:ok")
	// Happened late: the info send lands after everything else observed.
	late := new(linHist).
		send(1, 0, 10, linInfo, 1, 10, linNone).
		send(2, 20, 30, linOK, 1, 11, 0).
		poll(3, 40, 50, 1, [2]int64{0, 11}).
		poll(3, 60, 70, 1, [2]int64{0, 11}, [2]int64{1, 10})
	linWant(t, late, "1:ok")
	// An info send cannot be seen before it was invoked.
	early := new(linHist).
		poll(3, 0, 5, 1, [2]int64{0, 10}).
		send(1, 10, 20, linInfo, 1, 10, linNone)
	linWant(t, early, "1:illegal")
}

// TestLinFailedSendDidNotHappen: a read of a failed send's value is illegal.
func TestLinFailedSendDidNotHappen(t *testing.T) {
	h := new(linHist).send(1, 0, 10, linFail, 1, 10, linNone).poll(2, 20, 30, 1, [2]int64{0, 10})
	linWant(t, h, "1:illegal")
}

// TestLinUnreadAckNeedsRoom: an acknowledged send of unknown offset takes an
// offset of its own between the sends acknowledged before and after it.
func TestLinUnreadAckNeedsRoom(t *testing.T) {
	h := func(third int64) *linHist {
		return new(linHist).send(1, 0, 10, linOK, 1, 1, 0).send(1, 20, 30, linOK, 1, 2, linNone).send(1, 40, 50, linOK, 1, 3, third)
	}
	linWant(t, h(1), "1:illegal")
	linWant(t, h(2), "1:ok")
	// Read contiguously around it: the read skipped it.
	linWant(t, h(2).poll(2, 60, 70, 1, [2]int64{0, 1}, [2]int64{2, 3}), "1:illegal")
	linWant(t, h(2).poll(2, 60, 70, 1, [2]int64{0, 1}, [2]int64{1, 2}, [2]int64{2, 3}), "1:ok")
}

// TestLinSameValueAtTwoOffsets: one send, read at two offsets.
func TestLinSameValueAtTwoOffsets(t *testing.T) {
	h := new(linHist).send(1, 0, 10, linOK, 1, 1, linNone).send(1, 20, 30, linOK, 1, 2, linNone).
		poll(2, 40, 50, 1, [2]int64{0, 1}, [2]int64{1, 2}).
		poll(3, 40, 50, 1, [2]int64{1, 1})
	linWant(t, h, "1:illegal")
}

// TestLinPendingAndCrashedOpsAreInfo: an op that never completes, or that a
// crash ends, may or may not have happened.
func TestLinPendingAndCrashedOpsAreInfo(t *testing.T) {
	h := new(linHist).
		add(1, 0, histories.Invoke, histories.FSend, histories.Send(1, 10)).
		add(1, 5, histories.Info, histories.FCrash).
		add(2, 6, histories.Invoke, histories.FSend, histories.Send(1, 11)).
		send(3, 20, 30, linOK, 1, 12, 1).
		poll(4, 40, 50, 1, [2]int64{0, 10}, [2]int64{1, 12})
	linWant(t, h, "1:ok")
	h.poll(4, 60, 70, 1, [2]int64{2, 11})
	linWant(t, h, "1:ok")
	h.poll(4, 80, 90, 1, [2]int64{3, 13})
	linWant(t, h, "1:illegal")
}

// TestLinTxnSplitsPerKey: a txn's sends and polls are checked on their keys
// over the txn's interval; an aborted txn's sends did not happen but its
// polls did read.
func TestLinTxnSplitsPerKey(t *testing.T) {
	h := new(linHist).send(9, 0, 5, linOK, 2, 100, 0)
	h.add(1, 10, histories.Invoke, histories.FTxn, histories.Send(1, 10), histories.Send(2, 20), histories.Mop{F: histories.MPoll})
	h.add(1, 20, histories.OK, histories.FTxn,
		histories.Mop{F: histories.MSend, Key: 1, Value: 10, Offset: 0},
		histories.Mop{F: histories.MSend, Key: 2, Value: 20, Offset: 2},
		histories.Mop{F: histories.MPoll, Records: map[int64][]histories.Record{2: {{Offset: 0, Value: 100}}}})
	h.add(1, 30, histories.Invoke, histories.FTxn, histories.Send(1, 11))
	h.add(1, 40, histories.Fail, histories.FTxn, histories.Mop{F: histories.MSend, Key: 1, Value: 11, Offset: 1})
	h.poll(2, 50, 60, 1, [2]int64{0, 10}).poll(3, 50, 60, 2, [2]int64{0, 100}, [2]int64{2, 20})
	linWant(t, h, "1:ok 2:ok")
	h.poll(2, 70, 80, 1, [2]int64{0, 10}, [2]int64{1, 11})
	linWant(t, h, "1:illegal 2:ok")
}

func TestLinCaps(t *testing.T) {
	h := new(linHist).send(1, 0, 10, linOK, 1, 1, 0).send(1, 20, 30, linOK, 1, 2, 1).send(1, 40, 50, linOK, 2, 1, 0)
	res := checkLin(t, h, LinOptions{MaxOpsPerKey: 1})
	if linOutcomes(res) != "1:skipped 2:ok" || res.Complete || !res.Valid || !strings.Contains(res.Keys[0].Reason, "MaxOpsPerKey") {
		t.Errorf("MaxOpsPerKey=1: %+v", res)
	}
	res = checkLin(t, h, LinOptions{MaxKeys: 1})
	if linOutcomes(res) != "1:ok 2:skipped" || res.Complete || !strings.Contains(res.Keys[1].Reason, "MaxKeys") {
		t.Errorf("MaxKeys=1: %+v", res)
	}
	res = checkLin(t, h, LinOptions{})
	if !res.Complete || !res.Valid {
		t.Errorf("no caps: %+v", res)
	}
}

func TestLinDuplicateValueSkipsKey(t *testing.T) {
	h := new(linHist).send(1, 0, 10, linOK, 1, 1, 0).send(2, 20, 30, linOK, 1, 1, 1)
	res := checkLin(t, h, LinOptions{})
	if linOutcomes(res) != "1:skipped" || !strings.Contains(res.Keys[0].Reason, "ops 1 and 3") {
		t.Errorf("duplicate value: %+v", res)
	}
}

func TestLinBadInput(t *testing.T) {
	cases := []struct {
		name string
		h    *linHist
		want string
	}{
		{"completion without invoke", new(linHist).add(1, 0, linOK, histories.FSend, histories.Send(1, 1)), "op 0: ok send of process 1 has no invoke"},
		{"double invoke", new(linHist).add(1, 0, histories.Invoke, histories.FSend).add(1, 1, histories.Invoke, histories.FPoll), "op 1: process 1 invokes poll while its op 0"},
		{"unknown type", new(linHist).add(1, 0, "maybe", histories.FSend), `op 0: unknown type "maybe"`},
		{"completion before invoke", new(linHist).add(1, 10, histories.Invoke, histories.FSend).add(1, 5, linOK, histories.FSend), "op 1: completes at time 5, before its invoke op 0"},
		{"negative offset", new(linHist).poll(1, 0, 1, 1, [2]int64{-3, 1}), "op 1: poll of key 1 returned value 1 at negative offset -3"},
	}
	for _, c := range cases {
		_, err := CheckLinearizable(c.h, LinOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestLinNemesisAndUnrelatedOpsIgnored: faults, assigns and commits carry no
// log operations.
func TestLinNemesisAndUnrelatedOpsIgnored(t *testing.T) {
	h := new(linHist).add(histories.NemesisProcess, 0, linInfo, "kill").
		add(1, 1, histories.Invoke, histories.FAssign).add(1, 2, linOK, histories.FAssign).
		add(2, 3, linOK, histories.FCrash).
		send(1, 10, 20, linOK, 1, 5, 0)
	linWant(t, h, "1:ok")
}

// TestLinTimeoutIsUnknown: fourteen concurrent sends of unknown offset and a
// read of a value no one sent make porcupine try every order of the sends;
// the time limit stops it without a verdict.
func TestLinTimeoutIsUnknown(t *testing.T) {
	h := new(linHist)
	for v := int64(0); v < 14; v++ {
		h.send(v, 0, 100, linOK, 1, v, linNone)
	}
	h.poll(99, 200, 300, 1, [2]int64{20, 1000})
	start := time.Now()
	res := checkLin(t, h, LinOptions{Timeout: 50 * time.Millisecond})
	if linOutcomes(res) != "1:unknown" || res.Complete || !res.Valid {
		t.Errorf("outcome %+v", res)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("timeout of 50ms took %v", el)
	}
}

func TestLinVisualization(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "viz")
	h := new(linHist).send(1, 0, 10, linOK, 1, 10, 5).send(1, 0, 10, linOK, 2, 10, 0).
		poll(2, 40, 50, 1, [2]int64{5, 11}).poll(2, 60, 70, 2, [2]int64{0, 10})
	res := checkLin(t, h, LinOptions{VisualizeDir: dir})
	if linOutcomes(res) != "1:illegal 2:ok" {
		t.Fatalf("outcomes %+v", res)
	}
	if res.Keys[1].Visualization != "" {
		t.Errorf("legal key has a visualization: %s", res.Keys[1].Visualization)
	}
	want := filepath.Join(dir, "linearizable-key-1.html")
	if res.Keys[0].Visualization != want {
		t.Fatalf("visualization path %q, want %q", res.Keys[0].Visualization, want)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<html", "send(10) -\\u003e 5", "poll -\\u003e [5:11]", "op 1 (ok)"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("visualization lacks %q", s)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in %s, want 1", len(entries), dir)
	}
}

// linCorrectHistory simulates clients of a correct log on nKeys keys:
// producers whose sends overlap (each send's offset is assigned at a random
// instant inside its interval), some timing out (info) whether or not they
// landed, and consumers reading slices of what was appended.
func linCorrectHistory(nOps, nKeys, procs int) *linHist {
	h := new(linHist)
	logs := make([][]int64, nKeys)
	seed := uint64(1)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	next := int64(0)
	type inflight struct {
		proc, call, key, value, off int64
		landed, timeout, isPoll     bool
		read                        []histories.Record
	}
	for t := int64(0); len(h.ops) < nOps; t += 10 {
		// One round: every process starts an op, the ops take effect in a
		// random order, then they complete in another random order.
		round := make([]inflight, procs)
		for p := range round {
			k := int64(rnd(nKeys))
			round[p] = inflight{proc: int64(p), call: t, key: k, value: next, off: linNone}
			next++
		}
		for _, i := range linPerm(procs, rnd) {
			f := &round[i]
			f.isPoll = f.proc%2 == 1 && len(logs[f.key]) > 0
			if !f.isPoll {
				f.timeout = rnd(20) == 0
				f.landed = !f.timeout || rnd(2) == 0
				if f.landed {
					f.off = int64(len(logs[f.key]))
					logs[f.key] = append(logs[f.key], f.value)
				}
				continue
			}
			from := rnd(len(logs[f.key]))
			for o := from; o < len(logs[f.key]) && o < from+5; o++ {
				f.read = append(f.read, histories.Record{Offset: int64(o), Value: logs[f.key][o]})
			}
		}
		for _, p := range linPerm(procs, rnd) {
			f := round[p]
			if f.isPoll {
				h.poll(f.proc, f.call, t+5+int64(p), f.key, linPairs(f.read)...)
				continue
			}
			typ, off := linOK, f.off
			if f.timeout {
				typ, off = linInfo, linNone
			}
			h.send(f.proc, f.call, t+5+int64(p), typ, f.key, f.value, off)
		}
	}
	return h
}

func linPerm(n int, rnd func(int) int) []int {
	p := make([]int, n)
	for i := range p {
		j := rnd(i + 1)
		p[i], p[j] = p[j], i
	}
	return p
}

func linPairs(rs []histories.Record) [][2]int64 {
	out := make([][2]int64, len(rs))
	for i, r := range rs {
		out[i] = [2]int64{r.Offset, r.Value}
	}
	return out
}

func TestLinSimulatedCorrectHistories(t *testing.T) {
	h := linCorrectHistory(20_000, 4, 6)
	res := checkLin(t, h, LinOptions{Timeout: 20 * time.Second})
	if linOutcomes(res) != "0:ok 1:ok 2:ok 3:ok" {
		t.Fatalf("correct simulated history: %+v", res.Keys)
	}
	// Swap two values read by one poll: no longer one log.
	for i := range h.ops {
		o := &h.ops[i]
		if o.F == histories.FPoll && o.Type == linOK {
			for k, rs := range o.Mops[0].Records {
				if len(rs) >= 2 {
					rs[0].Value, rs[1].Value = rs[1].Value, rs[0].Value
					res = checkLin(t, h, LinOptions{Timeout: 20 * time.Second})
					if res.Valid {
						t.Fatalf("swapped values in op %d key %d still linearizable", o.Index, k)
					}
					return
				}
			}
		}
	}
	t.Fatal("no poll with two records to corrupt")
}

func BenchmarkCheckLinearizable(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 200_000} {
		h := linCorrectHistory(n, 4, 6)
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				res, err := CheckLinearizable(h, LinOptions{})
				if err != nil || !res.Valid || !res.Complete {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

// ExampleCheckLinearizable: an acknowledged send at offset 0 and a poll that
// read another value there.
func ExampleCheckLinearizable() {
	h := new(linHist).
		send(1, 0, 10, histories.OK, 7, 100, 0).
		poll(2, 20, 30, 7, [2]int64{0, 101})
	res, err := CheckLinearizable(h, LinOptions{Timeout: time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range res.Keys {
		fmt.Println("key", k.Key, k.Outcome, k.Ops, "ops:", k.Reason)
	}
	fmt.Println("valid:", res.Valid)
	// Output:
	// key 7 illegal 2 ops: no order of these sends and polls is consistent with one log and with real time
	// valid: false
}
