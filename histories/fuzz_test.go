package histories

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// FuzzReadJSONL: no input may panic or hang; every error is a ParseError;
// whatever reads back cleanly writes back to the same ops.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(okLine0 + "\n" + okLine1 + "\n"))
	f.Add([]byte(`{"index":0,"time":1700000,"process":4,"type":"ok","f":"poll","value":[{"f":"poll","records":{"1":[[271,16],[272,17]]}}],"group":"g","rebalance":{"revoked":[2]}}`))
	f.Add([]byte(`{"index":0,"time":1,"process":-1,"type":"info","f":"kill","value":{"nodes":[2]},"x":[1,{"y":null}]}` + "\n{\"index\":1"))
	f.Add([]byte(`{"index":0,"process":1,"type":"ok","f":"commit","value":[{"f":"commit","offsets":{"1":273}}],"error":"a\u00e9\n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz")
		var ops []Op
		for {
			op, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error is not a ParseError: %v", err)
				}
				return
			}
			ops = append(ops, *op)
		}
		var buf bytes.Buffer
		if err := ExportJSONL(&buf, FromOps(ops)); err != nil {
			t.Fatalf("re-encoding what was read: %v", err)
		}
		again := readAllJSONL(t, buf.Bytes())
		if len(ops)+len(again) > 0 && !reflect.DeepEqual(normalizeValues(again), normalizeValues(ops)) {
			t.Fatalf("re-read differs: %s", firstDiff(again, ops))
		}
	})
}

// normalizeValues drops raw JSON texts, which re-encoding may respell
// (e.g. strings with escapes) but never change in meaning.
func normalizeValues(ops []Op) []Op {
	out := make([]Op, len(ops))
	for i, op := range ops {
		op.Value, op.Extra = nil, nil
		out[i] = op
	}
	return out
}

// FuzzReadEDN: no input may panic or hang; every error is a ParseError.
func FuzzReadEDN(f *testing.F) {
	f.Add([]byte(`[{:index 0 :type :invoke :f :send :process 0 :value [[:send 1 2]]} {:index 1 :type :ok :f :send :process 0 :value [[:send 1 [0 2]]]}]`))
	f.Add([]byte("#jepsen.history.Op{:index 0, :time 5, :type :ok, :process 1, :f :poll, :value [[:poll {0 [[0 1] [1 2]]}]], :rebalance-log [{:type :assigned, :keys [0 1]}]}\n"))
	f.Add([]byte(`{:type :info :f :start-partition :process :nemesis :value [:isolated {"n1" #{"n2"}}] :error "x\n" ; c` + "\n}"))
	f.Add([]byte(`{"type" "fail" "f" "txn" "process" 3 "value" [[:poll] [:send 0 4] [:commit {0 5}]] :error [:abort \a \newline 1.5M 2N]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := ReadEDN(bytes.NewReader(data), "fuzz.edn")
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error is not a ParseError: %v", err)
		}
	})
}
