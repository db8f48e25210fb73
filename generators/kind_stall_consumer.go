package generators

import (
	"reflect"
	"time"

	"github.com/kafkachaos/kafkachaos/model"
)

// Behavior:
//
// * Stalls one group consumer's application for the window while its
//   heartbeats go on; needs group consumers that have joined (groupJoin),
//   not transactional ones (they assign and only watch), and its window
//   over stallWake before the run's end.
// * Footprint: the consumers.
// * Scheduled by hand; a draw rule stalls one consumer. --nemesis starts
//   it at a fifth of the run, for 60% of it.

// KindStallConsumer stops the application of one group consumer between
// two of its ops for the window — a batch whose processing takes too long
// — while librdkafka's threads go on heartbeating, and lets it go on at the
// window's end. It is the slow-processing rebalance, not pause-client's
// SIGSTOP (which stops the heartbeats too: the session timeout). A stall
// past consumer max.poll.interval makes librdkafka leave the group; the
// member's first poll after it sees the eviction, and a commit it makes on
// waking carries its old membership. Shorter, nothing happens: the control.
// Params.Target is "one" (the default): one consumer, chosen by the seed.
// With workload.client-processes the consumer's worker process stalls it,
// asked over the wire.
const KindStallConsumer = "stall-consumer"

// stallWake is how long before the run's end a stall must be over: the
// consumer's next poll op after it (a commit op may come first, up to a
// poll's wait later) proves the heal and shows what it saw.
const stallWake = time.Second

// librdkafka's bounds on max.poll.interval.ms, and its session.timeout.ms
// default (the classic protocol's floor for max.poll.interval.ms).
const (
	minMaxPollInterval    = time.Millisecond
	maxMaxPollInterval    = 24 * time.Hour
	librdkafkaSessionTime = 45 * time.Second
)

func stallConsumerKind() Kind {
	return Kind{Name: KindStallConsumer, targets: []string{"one"}, heal: stallWake,
		Doc: "Stops the application of one group consumer between two of its ops for the window (a batch whose processing " +
			"takes too long) while librdkafka's threads go on heartbeating, and lets it go on at the window's end. A stall " +
			"past consumer max.poll.interval makes librdkafka leave the group; shorter, nothing happens: the control. " +
			"Params.Target is one (the default).",
		need:      staticNeed(need{consumers: true, group: true, warmup: groupJoin}),
		check:     checkStall,
		footprint: clientFootprint("consumers"),
		available: stallHook,
		defaults: func(f *Fault, limit Duration, _ FaultFlags) {
			// it starts once the group has joined and ends well before
			// the run, for the consumer's waking to show
			f.Start, f.Duration, f.Params = limit/5, limit*6/10, FaultParams{}
		},
		draw: drawNone,
	}
}

// stallHook checks that the consumers have the stall hook stall-consumer
// holds them by: librdkafka's consumer has it, the java consumer not yet.
func stallHook(s Scenario, _ Fault, field string) error {
	if c := s.ClientOf(RoleConsumer); c != ClientLibrdkafka {
		return bad(field+".kind", "stall-consumer holds a consumer by librdkafka's stall hook, and the consumers run the %s client, which lacks it: name librdkafka in clients.consumer", c)
	}
	return nil
}

// checkStall checks what stall-consumer reads and the workloads it can
// act on.
func checkStall(f Fault, field string, s *Scenario) error {
	rest := f.Params
	rest.Target = ""
	switch {
	case f.Params.Target != "" && f.Params.Target != "one":
		return bad(field+".params.target", "%q: stall-consumer stalls one consumer (want one, or leave it empty)", f.Params.Target)
	case !reflect.ValueOf(rest).IsZero():
		return bad(field+".params", "%+v: stall-consumer reads only target", rest)
	case s.Consumer.CommitStrategy == model.CommitTransactional:
		return bad(field+".kind", "stall-consumer stalls a group consumer, and with commit-strategy transactional the consumers assign and only watch")
	case f.End() > s.TimeLimit-Duration(stallWake):
		return bad(field+".duration", "window ends at %s: want it over %s before the time limit %s, for the consumer's next op to show what it saw", f.End(), stallWake, s.TimeLimit)
	}
	return nil
}

// validateMaxPoll checks consumer max.poll.interval as librdkafka would:
// 1 ms to 24 h, and under the classic protocol at least session.timeout
// (librdkafka refuses a shorter one; 45 s when the scenario names none).
// Under KIP-848 the session is the broker's and only the bounds apply.
func (c Consumer) validateMaxPoll() error {
	d := c.MaxPollInterval.D()
	if d == 0 {
		return nil // librdkafka's 300 s
	}
	session := c.SessionTimeout.D()
	if session == 0 {
		session = librdkafkaSessionTime
	}
	switch {
	case d < minMaxPollInterval || d > maxMaxPollInterval:
		return bad("consumer.max.poll.interval", "%s, want %s to %s", c.MaxPollInterval, minMaxPollInterval, maxMaxPollInterval)
	case c.GroupProtocol != GroupConsumer && d < session:
		return bad("consumer.max.poll.interval", "%s is below session.timeout %s: librdkafka wants max.poll.interval.ms >= session.timeout.ms under the classic protocol", c.MaxPollInterval, session)
	}
	return nil
}
