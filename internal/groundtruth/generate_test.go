package groundtruth

import (
	"bytes"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

func TestGenerateRoundTrips(t *testing.T) {
	var buf bytes.Buffer
	if err := Generate(3, 2000, &buf); err != nil {
		t.Fatal(err)
	}
	var want []histories.Op
	if err := GenerateTo(3, 2000, DefaultConfig(), func(op *histories.Op) error {
		want = append(want, *op)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := histories.NewReader(&buf, "generated").Scan(func(op *histories.Op) error {
		if op.Index != want[n].Index || op.F != want[n].F || op.Type != want[n].Type || len(op.Mops) != len(want[n].Mops) {
			t.Fatalf("line %d: read %+v, generated %+v", n+1, *op, want[n])
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Fatalf("read %d ops, generated %d", n, len(want))
	}
}
