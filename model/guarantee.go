package model

// Guarantee is a delivery guarantee. At-most-once and at-least-once are
// incomparable (one allows loss, the other duplicates); None is below both and
// ExactlyOnce above both.
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
