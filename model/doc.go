// Package model turns configurations and checker results into delivery
// guarantees (at-most-once, at-least-once, exactly-once, or none).
//
// Two directions meet here. Expected maps a producer, topic and consumer
// configuration to the guarantee Kafka documents for it, hop by hop, with the
// reasons in words so that a report can say why. Observed maps a checker
// Result to the guarantee the run actually showed, hop by hop. A run passes
// when Expectation.HeldBy(observation): each hop Satisfies its expectation.
//
// A Guarantee is two independent permissions: may lose, may duplicate. The
// four guarantees form a lattice (none < at-most-once, at-least-once <
// exactly-once; at-most-once and at-least-once are incomparable) and every
// operation is computed on the two axes.
//
// This package must not know about Kafka clients, clusters or how a history
// was recorded: it sees configurations as plain values and runs only through
// checkers.Result. The porcupine model of a partition log is its own package
// below this one, model/partitionlog: checkers' linearizability adapter uses
// it, and this package imports checkers, so it cannot live here.
package model
