package generators

import (
	"slices"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/model"
)

// Behavior:
//
// * Holds the Params.Requests of clients whose client.id starts with
//   Params.Client for Params.Delay each (at most Params.Count of them),
//   letting the clients' other connections through: an order-breaking
//   delay. Some client of the workload must send a request it holds.
// * Footprint: the clients' proxies; one proxy fault at a time on them.
// * Drawn: produce requests (and EndTxn where transactions end) held
//   100 ms up to a quarter of the run, every one or the first few; where
//   transactions end, half the draws hold them 0.5-3 s past the
//   producer's delivery timeout, every one or the first six at most. The
//   window outlasts the hold by a second.
//   --nemesis holds produce and EndTxn 2 s.

// KindDelayedRequests holds the Params.Requests of clients whose
// client.id starts with Params.Client for Params.Delay each (at most
// Params.Count of them; 0: every one), letting the clients' other
// connections through: an order-breaking delay.
const KindDelayedRequests = "delayed-requests"

// DefaultHold is how long delayed-requests holds each request when it
// names no delay.
const DefaultHold = 2 * time.Second

// Requests a delayed-requests fault may hold (Params.Requests).
func holdRequests() []string {
	return []string{"produce", "commit", "txn-offset-commit", "end-txn", "add-partitions", "add-offsets"}
}

// DefaultHoldRequests are the requests a delayed-requests fault holds
// when it names none: the late arrivals of KAFKA-17754.
func DefaultHoldRequests() []string { return []string{"produce", "end-txn"} }

func delayedRequestsKind() Kind {
	return Kind{Name: KindDelayedRequests, Capability: cluster.CapProxy, Drawn: true,
		Doc: "Holds the Params.Requests (produce, commit, txn-offset-commit, end-txn, add-partitions, add-offsets; " +
			"produce and end-txn by default) of clients whose client.id starts with Params.Client for Params.Delay each " +
			"(2 s by default; at most Params.Count of them, 0 every one), letting the clients' other connections through: " +
			"an order-breaking delay, the late arrivals of KAFKA-17754.",
		Owns:  []string{"requests", "client", "count"},
		check: checkHold,
		footprint: func(Fault, Scenario) Footprint {
			return Footprint{Proxies: LinkClients}
		},
		draw:      drawHold,
		window:    holdWindow,
		available: holdWorkload,
	}
}

// checkHold checks the parameters delayed-requests reads, and that some
// client of s sends a request it holds.
func checkHold(f Fault, field string, _ *Scenario) error {
	if f.Params.Count < 0 {
		return bad(field+".params", "count %d: must not be negative", f.Params.Count)
	}
	for i, r := range f.Params.Requests {
		if !slices.Contains(holdRequests(), r) {
			return bad(field+".params.requests", "[%d] %q is not one of %v", i, r, holdRequests())
		}
	}
	return nil
}

// drawHold draws produce and EndTxn requests (EndTxn only where
// transactional copiers or txn queues send it) held for 100 ms up to a
// quarter of the run (at most DefaultHold), every one of them or the
// first few. Where transactions end, half the draws hold requests past
// the producer's delivery timeout instead, every one or the first few:
// held with its retries (a client retries a timed-out request with the
// same sequence, which a late original then duplicates), a batch expires,
// the client aborts and begins its next transaction while the request is
// still on its way, which is KAFKA-17754's late arrival.
func drawHold(d drawer, label func(string) string, s Scenario) FaultParams {
	held := []string{"produce"}
	if sendsEndTxn(s.Workload) {
		held = []string{"produce", "end-txn", "produce+end-txn"}
	}
	requests := strings.Split(d.pick(label("requests"), held), "+")
	if past, ok := pastTimeout(s); ok && d.pick(label("hold"), []string{"brief", "past-timeout"}) == "past-timeout" {
		return FaultParams{Requests: requests, Delay: past + drawMs(d, label, "hold-past-ms", 500, 3000),
			Count: d.intRange(label("hold-count"), 0, 6)}
	}
	longest := int(min(DefaultHold, s.TimeLimit.D()/4) / time.Millisecond)
	return FaultParams{Requests: requests, Delay: drawMs(d, label, "hold-ms", 100, max(100, longest)),
		Count: d.intRange(label("hold-count"), 0, 5)}
}

// pastTimeout is how long a transactional producer of s waits for a
// request before it gives the request up (its delivery timeout), when a
// hold past it fits in half the run.
func pastTimeout(s Scenario) (Duration, bool) {
	give := s.Producer.DeliveryTimeout
	return give, sendsEndTxn(s.Workload) && give > 0 && give+Duration(4*time.Second) <= s.TimeLimit/2
}

// holdWindow is the shortest window of a delayed-requests fault: long
// enough for a request held from its start to be let go by the hold, not
// by the heal.
func holdWindow(f Fault) time.Duration { return f.Params.HoldFor() + time.Second }

// HeldRequests is what a delayed-requests fault holds: Params.Requests, or
// DefaultHoldRequests when it names none.
func (p FaultParams) HeldRequests() []string {
	if len(p.Requests) == 0 {
		return DefaultHoldRequests()
	}
	return p.Requests
}

// HoldFor is how long a delayed-requests fault holds each request:
// Params.Delay, or DefaultHold.
func (p FaultParams) HoldFor() time.Duration {
	if p.Delay == 0 {
		return DefaultHold
	}
	return p.Delay.D()
}

// holdWorkload checks that some client of s sends a request f holds:
// producers, copiers and txn queues produce; group consumers that commit
// themselves and at-least-once copiers send OffsetCommit; transactional
// copiers send every transaction request, txn queues those of a
// transaction without offsets (AddPartitionsToTxn, EndTxn).
func holdWorkload(s Scenario, f Fault, field string) error {
	w := s.Workload
	txnCopiers := w.Copiers > 0 && w.CopyMode() == CopyTransactional
	committers := (w.Consumers > 0 && w.Mode == ModeGroup && s.Consumer.CommitStrategy != model.CommitTransactional) ||
		(w.Copiers > 0 && !txnCopiers)
	for _, r := range f.Params.HeldRequests() {
		switch {
		case r == "produce" && w.Producers+w.Copiers+w.TxnQueues > 0, r == "commit" && committers,
			(r == "end-txn" || r == "add-partitions") && sendsEndTxn(w),
			(r == "txn-offset-commit" || r == "add-offsets") && txnCopiers:
			return nil
		}
	}
	return bad(field+".params.requests", "%s holds %v, which no client of the workload sends (%d producers, %d copiers in mode %s, %d txn queues, %d consumers in mode %s committing %s)",
		f.Kind, f.Params.HeldRequests(), w.Producers, w.Copiers, w.CopyMode(), w.TxnQueues, w.Consumers, w.Mode, s.Consumer.CommitStrategy)
}

// sendsEndTxn reports whether some client of w ends transactions:
// transactional copiers or txn queues.
func sendsEndTxn(w Workload) bool {
	return w.TxnQueues > 0 || (w.Copiers > 0 && w.CopyMode() == CopyTransactional)
}
