package histories

import (
	"slices"
	"sync"
	"testing"
)

// Take hands over what moved since the last Take, once, in the order
// noted; nothing moved is nil. Callbacks may note from another goroutine.
func TestMovesTake(t *testing.T) {
	var m Moves
	if m.Take() != nil {
		t.Fatal("nothing moved, but Take says something did")
	}
	var wg sync.WaitGroup
	wg.Go(func() { m.Revoke(1, 2) })
	wg.Wait()
	m.Assign(3)
	rb := m.Take()
	if rb == nil || !slices.Equal(rb.Revoked, []Key{1, 2}) || !slices.Equal(rb.Assigned, []Key{3}) {
		t.Fatalf("Take = %+v, want revoked [1 2], assigned [3]", rb)
	}
	if m.Take() != nil {
		t.Fatal("a second Take hands over the same moves again")
	}
}
