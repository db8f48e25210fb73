package histories

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// stdDecode reads line with encoding/json (stdOp, stdMop: the benchmarks'
// baseline) into the Op the hand-written decoder must give.
func stdDecode(t *rapid.T, line []byte) Op {
	var l stdOp
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &l); err != nil {
		t.Fatalf("encoding/json: %v\n%s", err, line)
	}
	if err := json.Unmarshal(line, &fields); err != nil {
		t.Fatal(err)
	}
	op := Op{Index: l.Index, Time: l.Time, Process: l.Process, Type: Type(l.Type), F: l.F,
		Group: l.Group, Error: l.Error, Rebalance: l.Rebalance}
	if op.Rebalance != nil {
		op.Rebalance.Revoked = nilIfEmpty(op.Rebalance.Revoked)
		op.Rebalance.Assigned = nilIfEmpty(op.Rebalance.Assigned)
	}
	switch l.F {
	case FSend, FPoll, FTxn, FCommit:
		op.Mops = stdMops(t, l.Value)
	case FAssign, FSubscribe:
		if err := json.Unmarshal(l.Value, &op.Keys); err != nil {
			t.Fatal(err)
		}
		op.Keys = nilIfEmpty(op.Keys)
	default:
		op.Value = l.Value
	}
	for name, raw := range fields {
		if !knownField(name) {
			if op.Extra == nil {
				op.Extra = map[string]json.RawMessage{}
			}
			op.Extra[name] = raw
		}
	}
	return op
}

func stdMops(t *rapid.T, raw json.RawMessage) []Mop {
	var ms []stdMop
	if err := json.Unmarshal(raw, &ms); err != nil {
		t.Fatal(err)
	}
	var out []Mop
	for _, m := range ms {
		mop := Mop{F: MopF(m.F), Key: m.Key, Value: m.Value, Offset: NoOffset}
		if m.Offset != nil {
			mop.Offset = *m.Offset
		}
		if m.Records != nil {
			mop.Records = map[Key][]Record{}
			for k, rs := range m.Records {
				var recs []Record
				for _, r := range rs {
					recs = append(recs, Record{Offset: r[0], Value: r[1]})
				}
				mop.Records[atoi(t, k)] = recs
			}
		}
		if m.Offsets != nil {
			mop.Offsets = map[Key]int64{}
			for k, o := range m.Offsets {
				mop.Offsets[atoi(t, k)] = o
			}
		}
		out = append(out, mop)
	}
	return out
}

func atoi(t *rapid.T, s string) int64 {
	k, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// The hand-written decoder, by Next and by Scan's blocks, reads every
// generated op as encoding/json does.
func TestDecoderAgreesWithEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := genHistory(t)
		var buf bytes.Buffer
		if err := ExportJSONL(&buf, FromOps(ops)); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
		next := readAllJSONL(t, buf.Bytes())
		i := 0
		err := NewReader(bytes.NewReader(buf.Bytes()), "h").Scan(func(op *Op) error {
			want := stdDecode(t, lines[i])
			if !reflect.DeepEqual(*op.Clone(), want) || !reflect.DeepEqual(next[i], want) {
				t.Fatalf("line %d: encoding/json reads\n%#v\nScan\n%#v\nNext\n%#v\n%s", i+1, want, *op, next[i], lines[i])
			}
			i++
			return nil
		})
		if err != nil || i != len(ops) {
			t.Fatalf("Scan: %v after %d of %d ops", err, i, len(ops))
		}
	})
}
