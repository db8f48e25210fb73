// Package kproxy puts TCP proxies between Kafka clients and brokers, in the
// harness process, so that faults can act on the connections themselves:
// latency with jitter, a connection that holds data and then drops it
// (timeout), resets (reset_peer), slow closes, bandwidth caps, streams cut
// into small slices (slicer), and holding chosen Kafka requests of chosen
// clients (hold: an order-breaking delay). The proxies and the stream
// toxics are Toxiproxy's, used as a library: no proxy server runs apart
// from the harness, and every toxic it adds is listed back and removed by
// Heal.
//
// This kernel has no netem, so a proxy is the only way here to make a
// request late rather than slow (tbf caps bandwidth; it does not delay one
// request while later ones pass). Kafka requests on one connection are
// answered in order, so holding a request holds the ones behind it on the
// same connection; requests on the client's other connections (another
// broker, the transaction coordinator) pass. That is the delay the
// transaction protocol's late-arrival bugs need: an EndTxn or a produce that
// lands after the next transaction has begun (KAFKA-17754).
//
// This package must not know about providers, nemeses, histories or
// scenarios: a provider routes its brokers' client listeners through a Set,
// and a nemesis fault adds and heals toxics by name.
package kproxy
