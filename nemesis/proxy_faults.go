package nemesis

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// Faults on the proxies between the run's clients and the brokers
// (cluster.Proxier). They act on connections, not on hosts: a latency
// toxic makes every request to the target late by the same amount, a hold
// makes chosen requests late while the client's other connections go on.
// The op names the toxic (its kind, stream and settings) and, for a hold,
// how many requests it held.

// toxicName is the name every proxy fault gives its toxic; one proxy
// fault at a time per node, as each heal removes every toxic.
const toxicName = "kafkachaos"

// Toxic puts t on the proxies of the target's nodes for the window (the
// "latency" kind: latency with jitter, timeout, reset_peer, slow_close,
// bandwidth or slicer) and removes every toxic at heal.
func Toxic(px cluster.Proxier, tg Targeting, target Target, t kproxy.Toxic) Fault {
	return toxicFault(px.AddToxic, px.HealToxics, "the clients' proxies", tg, target, t)
}

// toxicFault is a latency fault whose toxic add puts on a node's proxy
// among those where (for the op) and heal removes from all of them.
func toxicFault(add func(context.Context, int32, string, kproxy.Toxic) error, heal func(context.Context) error,
	where string, tg Targeting, target Target, t kproxy.Toxic) Fault {
	if err := t.Validate(); err != nil {
		return badFault("latency", err)
	}
	return &targetFault{name: "latency", startF: "latency", stopF: "latency-heal", tg: tg,
		pick: tg.Pick(target), target: string(target), mechanism: toxicDetail(t, where),
		effects: [2]cluster.Effect{cluster.EffectToxic, cluster.EffectToxicHeal},
		apply:   eachNode(func(ctx context.Context, n int32) error { return add(ctx, n, toxicName, t) }),
		heal:    func(ctx context.Context, _ any) error { return heal(ctx) }}
}

// toxicDetail is what a proxy fault's op says of its toxic on the proxies
// where.
func toxicDetail(t kproxy.Toxic, where string) map[string]any {
	d := map[string]any{"mechanism": "toxiproxy " + t.Kind + " toxic on " + where, "stream": t.Stream}
	switch t.Kind {
	case kproxy.Latency:
		d["latency"], d["jitter"] = t.Latency.String(), t.Jitter.String()
	case kproxy.Timeout, kproxy.ResetPeer:
		d["timeout"] = t.Timeout.String()
	case kproxy.SlowClose, kproxy.Slicer:
		d["delay"] = t.Delay.String()
	case kproxy.Bandwidth:
		d["rate-kb-per-s"] = t.RateKBps
	case kproxy.HoldType:
		d["api-keys"], d["client-id-prefix"], d["hold"], d["count"] = t.Hold.APIKeys, t.Hold.ClientID, t.Hold.For.String(), t.Hold.Count
	}
	if t.Kind == kproxy.Slicer {
		d["average-size"], d["size-variation"] = t.AverageSize, t.SizeVariation
	}
	return d
}

// DelayedRequests holds the requests h chooses on the proxies of the
// target's nodes for the window: each held request, and the ones behind it
// on its connection, arrive h.For late, while the client's requests on
// other connections pass (an order-breaking delay). It counts as fired
// when the hold is listed on every node's proxy; Hits says how many
// requests it held, so a window that held none shows as such.
func DelayedRequests(px cluster.Proxier, tg Targeting, target Target, h kproxy.Hold) Fault {
	t := kproxy.Toxic{Kind: kproxy.HoldType, Stream: "upstream", Hold: h}
	if err := t.Validate(); err != nil {
		return badFault("delayed-requests", err)
	}
	f := &holdFault{px: px}
	f.targetFault = &targetFault{name: "delayed-requests", startF: "delayed-requests", stopF: "delayed-requests-heal", tg: tg,
		pick: tg.Pick(target), target: string(target), mechanism: toxicDetail(t, "the clients' proxies"),
		effects: [2]cluster.Effect{cluster.EffectToxic, cluster.EffectToxicHeal},
		apply: func(ctx context.Context, nodes []int32) (any, error) {
			f.mu.Lock()
			f.nodes = nodes
			f.mu.Unlock()
			return eachNode(func(ctx context.Context, n int32) error { return px.AddToxic(ctx, n, toxicName, t) })(ctx, nodes)
		},
		heal: func(ctx context.Context, _ any) error {
			// a node whose hold was never added (apply failed before it)
			// has nothing to count: the heal is the toxics' removal alone
			held, _ := f.count()
			f.mu.Lock()
			f.held, f.nodes = f.held+held, nil
			f.mu.Unlock()
			return px.HealToxics(ctx)
		}}
	return f
}

// holdFault is DelayedRequests: a targetFault that counts what its holds
// held before they are removed.
type holdFault struct {
	*targetFault
	px cluster.Proxier

	mu    sync.Mutex
	nodes []int32 // the nodes of the open window
	held  int64   // held in windows already healed
}

// count is what the open window's holds have held so far.
func (f *holdFault) count() (int64, error) {
	f.mu.Lock()
	nodes := f.nodes
	f.mu.Unlock()
	var sum int64
	var errs []error
	for _, n := range nodes {
		h, err := f.px.HeldBy(n, toxicName)
		if err != nil {
			errs = append(errs, fmt.Errorf("node %d: %w", n, err))
		}
		sum += h
	}
	return sum, errors.Join(errs...)
}

// Detail is the op's detail with the requests held so far.
func (f *holdFault) Detail() any {
	d, _ := f.targetFault.Detail().(map[string]any)
	if d != nil {
		d["held"] = f.Hits()
	}
	return d
}

// Hits is how many requests the fault held, over every window.
func (f *holdFault) Hits() int {
	open, _ := f.count()
	f.mu.Lock()
	defer f.mu.Unlock()
	return int(f.held + open)
}
