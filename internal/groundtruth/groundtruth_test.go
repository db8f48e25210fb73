package groundtruth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/kafkachaos/kafkachaos/histories"
)

// wellFormed checks the history conventions the simulator promises: dense
// indexes, increasing times, one op in flight per process, completions that
// match their invocations, and no process id reused after it ended.
func wellFormed(ops []histories.Op) error {
	inFlight := map[int64]*histories.Op{}
	dead := map[int64]bool{}
	for i := range ops {
		op := &ops[i]
		if op.Index != int64(i) {
			return fmt.Errorf("op %d has index %d", i, op.Index)
		}
		if i > 0 && op.Time <= ops[i-1].Time {
			return fmt.Errorf("op %d: time %d not after %d", i, op.Time, ops[i-1].Time)
		}
		if dead[op.Process] {
			return fmt.Errorf("op %d: process %d came back", i, op.Process)
		}
		inv := inFlight[op.Process]
		switch {
		case op.F == histories.FCrash:
			if inv != nil || op.Type != histories.Info {
				return fmt.Errorf("op %d: crash with an op in flight or not info", i)
			}
			dead[op.Process] = true
		case op.Type == histories.Invoke:
			if inv != nil {
				return fmt.Errorf("op %d: process %d invokes with op %d in flight", i, op.Process, inv.Index)
			}
			inFlight[op.Process] = op
		default:
			if inv == nil || inv.F != op.F {
				return fmt.Errorf("op %d: completion without a matching invocation", i)
			}
			delete(inFlight, op.Process)
			dead[op.Process] = op.Type == histories.Info
		}
	}
	if len(inFlight) > 0 {
		return fmt.Errorf("%d ops still in flight at the end", len(inFlight))
	}
	return nil
}

// finalReadsExact checks the ground truth the simulator exists for: the last
// process's reads return every acknowledged value exactly once, in offset
// order, and no value of a failed op.
func finalReadsExact(ops []histories.Op) error {
	last := ops[len(ops)-1].Process
	acked := map[[2]int64]bool{}
	failed := map[[2]int64]bool{}
	read := map[[2]int64]int{}
	lastOff := map[int64]int64{}
	for i := range ops {
		op := &ops[i]
		for _, m := range op.Mops {
			if m.F == histories.MSend && op.Type == histories.OK {
				acked[[2]int64{m.Key, m.Value}] = true
			}
			if m.F == histories.MSend && op.Type == histories.Fail {
				failed[[2]int64{m.Key, m.Value}] = true
			}
			if op.Process != last || op.Type != histories.OK {
				continue
			}
			for k, rs := range m.Records {
				for _, r := range rs {
					if o, ok := lastOff[k]; ok && r.Offset <= o {
						return fmt.Errorf("op %d: key %d offset %d after %d", i, k, r.Offset, o)
					}
					lastOff[k] = r.Offset
					read[[2]int64{k, r.Value}]++
				}
			}
		}
	}
	for kv := range acked {
		if read[kv] != 1 {
			return fmt.Errorf("acked key %d value %d read %d times by the final reads", kv[0], kv[1], read[kv])
		}
	}
	for kv := range failed {
		if read[kv] != 0 {
			return fmt.Errorf("failed key %d value %d was read", kv[0], kv[1])
		}
	}
	return nil
}

func TestGenWellFormed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := Gen(SmallConfig(), 0, 60).Draw(t, "history")
		if err := wellFormed(ops); err != nil {
			t.Fatal(err)
		}
		if err := finalReadsExact(ops); err != nil {
			t.Fatal(err)
		}
	})
}

func TestGenerateToDeterministicAndExact(t *testing.T) {
	run := func(seed int64) ([]histories.Op, []byte) {
		var ops []histories.Op
		var buf bytes.Buffer
		err := GenerateTo(seed, 5000, DefaultConfig(), func(op *histories.Op) error {
			ops = append(ops, *op)
			line, _ := json.Marshal(op)
			buf.Write(line)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return ops, buf.Bytes()
	}
	ops, a := run(7)
	_, b := run(7)
	_, c := run(8)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed gave different histories")
	}
	if bytes.Equal(a, c) {
		t.Fatal("different seeds gave the same history")
	}
	if len(ops) < 5000 {
		t.Fatalf("asked for 5000 ops, got %d", len(ops))
	}
	if err := wellFormed(ops); err != nil {
		t.Fatal(err)
	}
	if err := finalReadsExact(ops); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, op := range ops {
		kinds[op.F+" "+string(op.Type)] = true
	}
	for _, want := range []string{"send ok", "send fail", "send info", "txn ok", "txn fail", "txn info",
		"poll ok", "poll fail", "poll info", "commit ok", "commit fail", "subscribe ok", "assign ok", "crash info"} {
		if !kinds[want] {
			t.Errorf("5000 ops have no %q", want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	bad := DefaultConfig()
	bad.Keys = 0
	if err := GenerateTo(1, 10, bad, func(*histories.Op) error { return nil }); err == nil {
		t.Fatal("Keys = 0 accepted")
	}
	if err := GenerateTo(1, -1, DefaultConfig(), func(*histories.Op) error { return nil }); err == nil {
		t.Fatal("nOps = -1 accepted")
	}
}
