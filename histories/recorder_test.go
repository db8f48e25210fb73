package histories

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRecorderConcurrentClients(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var observed atomic.Int64
	rec := NewRecorder(w, RecorderConfig{FlushEvery: time.Millisecond, Observe: func(*Op) { observed.Add(1) }})
	const clients, each = 8, 200
	var wg sync.WaitGroup
	for p := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range each {
				inv := rec.Invoke(int64(p), FSend, []Mop{Send(int64(p), int64(v))})
				rec.Complete(inv, OK, []Mop{{F: MSend, Key: int64(p), Value: int64(v), Offset: int64(v)}}, nil)
			}
		}()
	}
	rec.Nemesis("kill", map[string][]int{"nodes": {2}})
	wg.Wait()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	ops, warns, err := ReadFile(path, FormatJSONL)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	if len(ops) != 2*clients*each+1 || observed.Load() != int64(len(ops)) {
		t.Fatalf("%d ops, %d observed", len(ops), observed.Load())
	}
	open := map[int64]int64{} // process -> value of its open invoke
	for i, op := range ops {
		if i > 0 && op.Time < ops[i-1].Time {
			t.Fatalf("op %d: time goes back", i)
		}
		switch {
		case op.F == "kill":
			if op.Process != NemesisProcess || op.Type != Info || string(op.Value) != `{"nodes":[2]}` {
				t.Fatalf("nemesis op %+v", op)
			}
		case op.Type == Invoke:
			open[op.Process] = op.Mops[0].Value
		default:
			if v, ok := open[op.Process]; !ok || v != op.Mops[0].Value || op.Mops[0].Offset != v {
				t.Fatalf("completion %+v does not match its invoke", op)
			}
			delete(open, op.Process)
		}
	}
}

func TestRecorderCompleteCopiesInvoke(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	w, _ := Create(path)
	rec := NewRecorder(w, RecorderConfig{FlushEvery: -1})
	inv := rec.InvokeKeys(7, FSubscribe, []Key{1, 2})
	inv.Group = "g" // groups are set by the client before completing
	done := rec.Complete(inv, Info, nil, errors.New("Local: Timed out"))
	if done.Index != 1 || done.Process != 7 || done.F != FSubscribe || done.Group != "g" || done.Error != "Local: Timed out" || len(done.Keys) != 2 {
		t.Fatalf("completion %+v", done)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	ops, _, err := ReadFile(path, FormatJSONL)
	if err != nil || len(ops) != 2 || ops[1].Error != "Local: Timed out" {
		t.Fatalf("%+v %v", ops, err)
	}
}

func TestRecorderFlushesPeriodically(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	w, _ := Create(path)
	rec := NewRecorder(w, RecorderConfig{FlushEvery: 5 * time.Millisecond})
	defer rec.Close()
	rec.Nemesis("pause", nil)
	deadline := time.Now().Add(5 * time.Second)
	for {
		ops, _, err := ReadFile(path, FormatJSONL)
		if err == nil && len(ops) == 1 {
			return // visible on disk without Flush or Close
		}
		if time.Now().After(deadline) {
			t.Fatalf("op not flushed: %v %v", ops, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A crash mid-write leaves whole lines plus a partial one: the history
// still reads, with a warning.
func TestWriterCrashLeavesReadableHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	w, _ := Create(path)
	for i := range 3 {
		if err := w.Append(&Op{Index: int64(i), Type: Invoke, F: FPoll, Mops: []Mop{{F: MPoll, Offset: NoOffset}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"index":3,"time":9,"proc`)
	f.Close()
	ops, warns, err := ReadFile(path, FormatAuto)
	if err != nil || len(ops) != 3 || len(warns) != 1 {
		t.Fatalf("%d ops, %v, %v", len(ops), warns, err)
	}
}

func TestWriterRejectsBadOps(t *testing.T) {
	w := NewWriter(discard{})
	bad := []Op{
		{Type: "okk", F: "x"},
		{Type: OK, F: FTxn, Mops: []Mop{{F: "read"}}},
		{Type: Info, F: "kill", Value: []byte(`{"a":`)},
		{Type: Info, F: "kill", Extra: map[string]json.RawMessage{"index": json.RawMessage(`1`)}},
	}
	for _, op := range bad {
		if err := w.Append(&op); err == nil {
			t.Errorf("accepted %+v", op)
		}
	}
	if err := w.Append(&Op{Type: Info, F: "kill"}); err != nil {
		t.Fatalf("a bad op must not poison the writer: %v", err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
