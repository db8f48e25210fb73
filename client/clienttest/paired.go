package clienttest

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

// CheckPaired fails t unless every process alternates invoke and
// completion and a crash or client-hang op (a process's end) is its last.
func CheckPaired(t testing.TB, ops []histories.Op) {
	t.Helper()
	open := map[int64]bool{}
	dead := map[int64]bool{}
	for _, o := range ops {
		if dead[o.Process] {
			t.Fatalf("op %d of process %d after its crash or client-hang", o.Index, o.Process)
		}
		switch {
		case o.F == histories.FCrash || o.F == histories.FClientHang:
			if open[o.Process] {
				t.Fatalf("%s op %d with an op still open", o.F, o.Index)
			}
			dead[o.Process] = true
		case o.Type == histories.Invoke:
			if open[o.Process] {
				t.Fatalf("op %d: process %d invokes twice", o.Index, o.Process)
			}
			open[o.Process] = true
		default:
			if !open[o.Process] {
				t.Fatalf("op %d: process %d completes nothing", o.Index, o.Process)
			}
			open[o.Process] = false
		}
	}
}

// CountF is how many ops of ops have function f.
func CountF(ops []histories.Op, f string) int {
	n := 0
	for _, o := range ops {
		if o.F == f {
			n++
		}
	}
	return n
}
