package report

import (
	"encoding/json"
	"testing"
)

// A fault window's label names the nodes its op's detail names when the
// value is too long to show whole (an add-broker names the broker it
// added); short values show whole, and a long value without nodes leaves
// the kind alone.
func TestWindowLabelNamesTheDetailsNodes(t *testing.T) {
	health := `"health":{"when":"before","healthy":true,"checked":"every broker registered"}`
	values := map[int64]json.RawMessage{
		1: json.RawMessage(`{"fault":"add-broker","detail":{"nodes":[4],"from":[1,2],"to":[4,2]},` + health + `}`),
		3: json.RawMessage(`{"fault":"reassign","detail":{"from":[1,2],"to":[3,2]},` + health + `}`),
		5: json.RawMessage(`{"nodes":[2]}`),
	}
	for op, want := range map[int64]string{1: "add-broker nodes [4]", 3: "add-broker", 5: `add-broker {"nodes":[2]}`} {
		if got := label("add-broker", barValue(bar{F: "add-broker-start", Op: op}, values)); got != want {
			t.Errorf("op %d: label %q, want %q", op, got, want)
		}
	}
}
