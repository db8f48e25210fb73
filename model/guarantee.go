package model

import "fmt"

// Guarantee is a delivery guarantee. At-most-once and at-least-once are
// incomparable (one allows loss, the other duplicates); None is below both and
// ExactlyOnce above both.
//
// A Guarantee is a pair of permissions on two independent axes, loss and
// duplication: None allows both, AtMostOnce allows loss, AtLeastOnce allows
// duplicates, ExactlyOnce allows neither. Every lattice operation below is
// computed on the two axes, which is why the lattice has exactly four points.
type Guarantee int

const (
	// None: messages may be lost and may be duplicated.
	None Guarantee = iota
	// AtMostOnce: messages may be lost, never duplicated.
	AtMostOnce
	// AtLeastOnce: messages are never lost, may be duplicated.
	AtLeastOnce
	// ExactlyOnce: never lost, never duplicated.
	ExactlyOnce
)

// names are the wire and display names, indexed by Guarantee.
var names = [...]string{"none", "at-most-once", "at-least-once", "exactly-once"}

// FromAxes is the guarantee that allows loss iff mayLose and duplicates iff
// mayDuplicate.
func FromAxes(mayLose, mayDuplicate bool) Guarantee {
	switch {
	case mayLose && mayDuplicate:
		return None
	case mayLose:
		return AtMostOnce
	case mayDuplicate:
		return AtLeastOnce
	default:
		return ExactlyOnce
	}
}

// MayLose reports whether g allows a message to be lost.
func (g Guarantee) MayLose() bool { return g == None || g == AtMostOnce }

// MayDuplicate reports whether g allows a message to be delivered twice.
func (g Guarantee) MayDuplicate() bool { return g == None || g == AtLeastOnce }

// Valid reports whether g is one of the four guarantees.
func (g Guarantee) Valid() bool { return g >= None && g <= ExactlyOnce }

// String returns "none", "at-most-once", "at-least-once" or "exactly-once".
func (g Guarantee) String() string {
	if !g.Valid() {
		return fmt.Sprintf("Guarantee(%d)", int(g))
	}
	return names[g]
}

// ParseGuarantee is the inverse of String.
func ParseGuarantee(s string) (Guarantee, error) {
	for i, n := range names {
		if n == s {
			return Guarantee(i), nil
		}
	}
	return None, fmt.Errorf("model: unknown guarantee %q (want one of none, at-most-once, at-least-once, exactly-once)", s)
}

// MarshalText writes the String form, so JSON carries "at-least-once" rather
// than a number whose meaning depends on this file's constant order.
func (g Guarantee) MarshalText() ([]byte, error) {
	if !g.Valid() {
		return nil, fmt.Errorf("model: cannot marshal invalid guarantee %d", int(g))
	}
	return []byte(g.String()), nil
}

// UnmarshalText parses the String form.
func (g *Guarantee) UnmarshalText(b []byte) error {
	v, err := ParseGuarantee(string(b))
	if err != nil {
		return err
	}
	*g = v
	return nil
}

// Satisfies reports whether a run that showed observed meets expected: it may
// show loss only if expected allows loss, and duplicates only if expected
// allows duplicates. A test fails when this is false.
func Satisfies(observed, expected Guarantee) bool {
	return (!observed.MayLose() || expected.MayLose()) &&
		(!observed.MayDuplicate() || expected.MayDuplicate())
}

// Meet is the strongest guarantee that both a and b satisfy: it allows what
// either allows. A message passes through two hops (producer to log, log to
// consumer), so the end-to-end guarantee is the Meet of the two hops.
func Meet(a, b Guarantee) Guarantee {
	return FromAxes(a.MayLose() || b.MayLose(), a.MayDuplicate() || b.MayDuplicate())
}
