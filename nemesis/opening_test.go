package nemesis

import (
	"context"
	"strings"
	"testing"
)

// A pick that chose nobody (a minority of a one-broker cluster) is an
// error: the fault must not count as fired on no broker.
func TestOpeningRefusesAnEmptyPick(t *testing.T) {
	tg := Targeting{}
	nobody := func(context.Context) ([]int32, error) { return nil, nil }
	d, nodes, err := tg.opening(t.Context(), "minority", nobody)
	if err == nil || !strings.Contains(err.Error(), "no broker to act on") || nodes != nil {
		t.Fatalf("opening with an empty pick: nodes %v, err %v; want an error naming it", nodes, err)
	}
	if d["target"] != "minority" {
		t.Errorf("detail %v: want the target named for the op", d)
	}
	one := func(context.Context) ([]int32, error) { return []int32{2}, nil }
	if _, nodes, err := tg.opening(t.Context(), "one", one); err != nil || len(nodes) != 1 {
		t.Errorf("opening with a pick of one: nodes %v, err %v", nodes, err)
	}
}
