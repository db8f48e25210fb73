package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// AddBroker grows the cluster by a new broker for the window and makes it
// carry data: Start has a (the BrokerAdder) add the broker (verified: the cluster lists it
// unfenced), then has r move one replica of tg's partition, drawn with
// tg's random source, onto it (verified: the move complete). Stop moves
// the replica back, then has a stop, unregister and remove the broker,
// each verified. The detail names the new broker (nodes), both replica
// lists and how long each step took.
func AddBroker(a cluster.BrokerAdder, r cluster.Reassigner, tg Targeting) Fault {
	return &addBrokerFault{a: a, r: r, tg: tg,
		verified: verified(a, cluster.EffectAddBroker) + "; then " + verified(r, cluster.EffectReassign),
		healed:   verified(r, cluster.EffectReassign) + "; then " + verified(a, cluster.EffectRemoveAdded)}
}

type addBrokerFault struct {
	a                cluster.BrokerAdder
	r                cluster.Reassigner
	tg               Targeting
	verified, healed string

	record // guards what follows too
	// added is the new broker's id while it is in the cluster, 0 when
	// none is (node ids start at 1); from is the replica list to return
	// to, set before the move is asked for (a move that failed half way
	// may still complete), nil when nothing is to undo.
	added int32
	from  []int32
}

// Name is also the history's start and stop: add-broker-start and
// add-broker-stop, which the report and the liveness checker pair as a
// window.
func (f *addBrokerFault) Name() string { return "add-broker" }

func (f *addBrokerFault) Start(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.added > 0 {
		return nil // added already
	}
	f.detail = map[string]any{"topic": f.tg.Topic, "partition": f.tg.Partition, "verified": f.verified}
	began := time.Now()
	id, err := f.a.AddBroker(ctx)
	if err != nil {
		return fmt.Errorf("add-broker: %w", err)
	}
	f.added = id
	f.detail["nodes"] = []int32{id}
	f.detail["join-took"] = since(began)
	from, err := f.r.Replicas(ctx, f.tg.Topic, f.tg.Partition)
	if err != nil {
		return fmt.Errorf("add-broker: %w", err)
	}
	to, err := moveOne(from, []int32{id}, f.tg.intN)
	if err != nil {
		return fmt.Errorf("add-broker: moving a replica of %s/%d to broker %d: %w", f.tg.Topic, f.tg.Partition, id, err)
	}
	f.from = from
	f.detail["from"], f.detail["to"] = from, to
	began = time.Now()
	if err := f.r.Reassign(ctx, f.tg.Topic, f.tg.Partition, to); err != nil {
		return fmt.Errorf("add-broker: %w", err)
	}
	f.detail["took"] = since(began)
	return nil
}

// Stop moves the replica back, then removes the broker; a step that did
// not complete is an error, and Stop may be called again to retry from it.
func (f *addBrokerFault) Stop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.detail == nil {
		return nil // never started
	}
	f.detail["healed"] = f.healed
	if f.from != nil {
		began := time.Now()
		if err := f.r.Reassign(ctx, f.tg.Topic, f.tg.Partition, f.from); err != nil {
			return fmt.Errorf("add-broker: moving the replica back: %w", err)
		}
		f.detail["back"], f.detail["back-took"] = f.from, since(began)
		f.from = nil
	}
	if f.added > 0 {
		began := time.Now()
		if err := f.a.RemoveAdded(ctx, f.added); err != nil {
			return fmt.Errorf("add-broker: removing broker %d: %w", f.added, err)
		}
		f.detail["remove-took"] = since(began)
		f.added = 0
	}
	return nil
}

// since is the time since began as the details record it.
func since(began time.Time) string { return time.Since(began).Round(time.Millisecond).String() }
