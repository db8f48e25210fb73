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
// A Set can also log every Kafka request and response its proxies carry
// (LogRequests; reqlog.go, decode.go), decoded for the transaction APIs,
// as Jepsen's packet captures explained each KAFKA-17754 case: a tap
// toxic, first on every proxy's streams from its start, hands each chunk
// to one decoder goroutine through a bounded queue and never waits, so a
// connection is never slowed by the log; ReadLog and Exchanges read it
// back, a request beside its response.
//
// This package must not know about providers, nemeses, histories or
// scenarios: a provider routes its brokers' client listeners through a Set,
// and a nemesis fault adds and heals toxics by name.
package kproxy
