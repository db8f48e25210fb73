package nemesis

import (
	"context"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// RemoveVoter takes the target's controller (one node: TargetOne or
// TargetController, the active one) out of the KRaft voter set for the
// window while its node keeps running, and puts it back at Stop. Each
// counts only once h saw it in the quorum (cluster.VoterChanger); the
// detail holds the quorum as DescribeQuorum described it before the
// removal, after it and after the heal: leader, epoch, high watermark,
// each voter's log end offset.
func RemoveVoter(h cluster.VoterChanger, tg Targeting, target Target) Fault {
	return &voterFault{h: h, tg: tg, target: target}
}

type voterFault struct {
	h      cluster.VoterChanger
	tg     Targeting
	target Target

	record
	// removed is the node whose removal was asked for; active is set
	// before the request, since one whose answer was lost may have
	// landed, and Stop must add it back.
	removed int32
	active  bool
}

// Name is also the history's start and stop: remove-voter-start and
// remove-voter-stop, which the report's timeline pairs as a window.
func (f *voterFault) Name() string { return "remove-voter" }

func (f *voterFault) Start(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.active {
		return nil
	}
	d, nodes, err := f.tg.opening(ctx, string(f.target), f.tg.Pick(f.target))
	d["request"] = "RemoveRaftVoter"
	f.detail = d
	if err != nil {
		return err
	}
	d["before"] = f.quorum(ctx)
	f.removed, f.active = nodes[0], true
	began := time.Now()
	if err := f.h.RemoveVoter(ctx, f.removed); err != nil {
		return err
	}
	d["took"] = time.Since(began).Round(time.Millisecond).String()
	d["verified"] = verified(f.tg.Provider, cluster.EffectRemoveVoter)
	d["after"] = f.quorum(ctx)
	return nil
}

// Stop adds the removed voter back; one not added (caught up) is an
// error, and Stop may be called again to retry it.
func (f *voterFault) Stop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.active {
		return nil
	}
	began := time.Now()
	if err := f.h.AddVoter(ctx, f.removed); err != nil {
		return err
	}
	f.active = false
	f.detail["heal-took"] = time.Since(began).Round(time.Millisecond).String()
	f.detail["heal-verified"] = verified(f.tg.Provider, cluster.EffectAddVoter)
	f.detail["healed"] = f.quorum(ctx)
	return nil
}

// quorum is the quorum now for the op's detail, or why it could not be
// described.
func (f *voterFault) quorum(ctx context.Context) any {
	q, err := f.h.Quorum(ctx)
	if err != nil {
		return err.Error()
	}
	return q
}
