package generators

import (
	"os"
	"testing"
)

// docs/faults.md is the registry's reference as it is now: a kind added or
// a doc changed without `make faults-doc` fails here.
func TestFaultReferenceIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../docs/faults.md")
	if err != nil {
		t.Fatalf("%v: run make faults-doc", err)
	}
	if string(b) != FaultReference() {
		t.Fatal("docs/faults.md is not the registry's reference: run make faults-doc")
	}
}
