package histories

import "testing"

// Copies and poisoned copies decode to what they were made of, never
// collide with each other, and values outside the scheme's digits are
// refused rather than written ambiguously.
func TestCopyValueScheme(t *testing.T) {
	for _, c := range []struct{ v, o, attempt int64 }{{0, 0, 0}, {5, 3, 41}, {CopyStride - 1, maxCopyHigh, maxCopyHigh}} {
		x, err := CopyValue(c.v, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if o, v, ok := CopyOf(x); !ok || o != c.o || v != c.v {
			t.Errorf("CopyOf(CopyValue(%d, %d) = %d) = %d, %d, %v", c.v, c.o, x, o, v, ok)
		}
		p, err := PoisonValue(c.v, c.attempt) // v as an offset: both are below CopyStride
		if err != nil {
			t.Fatal(err)
		}
		if o, a, ok := PoisonOf(p); !ok || o != c.v || a != c.attempt || p >= 0 {
			t.Errorf("PoisonOf(PoisonValue(%d, %d) = %d) = %d, %d, %v", c.v, c.attempt, p, o, a, ok)
		}
		if _, _, ok := CopyOf(p); ok {
			t.Errorf("poisoned %d decodes as a copy", p)
		}
	}
	p7, _ := PoisonValue(3, 7)
	p8, _ := PoisonValue(3, 8)
	if p7 == p8 {
		t.Error("two attempts poison offset 3 alike")
	}
	for _, bad := range [][2]int64{{-1, 0}, {CopyStride, 0}, {0, -1}, {0, maxCopyHigh + 1}} {
		if _, err := CopyValue(bad[0], bad[1]); err == nil {
			t.Errorf("CopyValue(%d, %d) accepted", bad[0], bad[1])
		}
		if _, err := PoisonValue(bad[0], bad[1]); err == nil {
			t.Errorf("PoisonValue(%d, %d) accepted", bad[0], bad[1])
		}
	}
}
