package histories

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

func TestJSONLRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := genHistory(t)
		var buf bytes.Buffer
		w := NewWriter(&buf)
		for i := range ops {
			if err := w.Append(&ops[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		got := readAllJSONL(t, buf.Bytes())
		if len(got)+len(ops) > 0 && !reflect.DeepEqual(got, ops) {
			t.Fatalf("round trip changed the history: %s\njsonl:\n%s", firstDiff(got, ops), buf.String())
		}
		// Scan (reusing memory) must see the same ops as Next.
		i := 0
		err := NewReader(bytes.NewReader(buf.Bytes()), "h").Scan(func(op *Op) error {
			if !reflect.DeepEqual(*op.Clone(), ops[i]) {
				t.Fatalf("Scan op %d: want %#v got %#v", i, ops[i], *op)
			}
			i++
			return nil
		})
		if err != nil || i != len(ops) {
			t.Fatalf("Scan: %v after %d ops", err, i)
		}
	})
}

func TestEDNRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := genHistory(t)
		var buf bytes.Buffer
		if err := ExportEDN(&buf, FromOps(ops)); err != nil {
			t.Fatal(err)
		}
		got, warns, err := ReadEDN(bytes.NewReader(buf.Bytes()), "h.edn")
		if err != nil || len(warns) > 0 {
			t.Fatalf("import: %v %v\n%s", err, warns, buf.String())
		}
		if len(ops) == 0 && len(got) == 0 {
			return
		}
		if !reflect.DeepEqual(got, ops) {
			t.Fatalf("round trip changed the history: %s\nedn:\n%s", firstDiff(got, ops), buf.String())
		}
	})
}

func readAllJSONL(t interface{ Fatal(...any) }, data []byte) []Op {
	r := NewReader(bytes.NewReader(data), "h")
	var ops []Op
	for {
		op, err := r.Next()
		if err != nil {
			if err == io.EOF {
				return ops
			}
			t.Fatal(err)
		}
		ops = append(ops, *op)
	}
}

// firstDiff describes the first op where got and want differ.
func firstDiff(got, want []Op) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("op %d:\nwant %+v\ngot  %+v", i, want[i], got[i])
		}
	}
	return fmt.Sprintf("lengths: want %d, got %d", len(want), len(got))
}
