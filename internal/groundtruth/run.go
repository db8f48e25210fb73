package groundtruth

import (
	"encoding/json"
	"fmt"

	"pgregory.net/rapid"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Run simulates cfg for the given number of scheduling steps, with every
// decision made by ch, then completes every op in flight, lets group members
// commit, and reads every key to its end with a fresh process. Each op goes
// to emit as it happens; emit must not keep the *Op's slices past the call if
// it changes them.
func Run(cfg Config, ch Chooser, steps int, emit func(*histories.Op) error) error {
	s, err := newSim(cfg, ch, emit)
	if err != nil {
		return err
	}
	for range steps {
		if err := s.step(); err != nil {
			return err
		}
	}
	return s.finish()
}

// GenerateTo streams a correct history of about nOps ops (the drain and the
// final reads come on top) for seed, with cfg, to emit. The same seed and
// cfg give the same history. Memory is the logs (8 bytes per offset) plus
// per-process state, never the history.
func GenerateTo(seed int64, nOps int, cfg Config, emit func(*histories.Op) error) error {
	if nOps < 0 {
		return fmt.Errorf("groundtruth: nOps = %d, want >= 0", nOps)
	}
	s, err := newSim(cfg, newRandChooser(seed), emit)
	if err != nil {
		return err
	}
	for s.index < int64(nOps) {
		if err := s.step(); err != nil {
			return err
		}
	}
	return s.finish()
}

// Gen is a rapid generator of small correct histories of cfg, of minSteps to
// maxSteps scheduling steps. Every decision is a rapid draw whose zero is the
// plainest option, so failing histories shrink toward few ops, ok outcomes,
// no crashes and complete reads.
func Gen(cfg Config, minSteps, maxSteps int) *rapid.Generator[[]histories.Op] {
	if err := cfg.validate(); err != nil {
		panic(err) // a programming error in the test, not bad input
	}
	return rapid.Custom(func(t *rapid.T) []histories.Op {
		steps := rapid.IntRange(minSteps, maxSteps).Draw(t, "steps")
		var ops []histories.Op
		err := Run(cfg, rapidChooser{t}, steps, func(op *histories.Op) error {
			ops = append(ops, *op)
			return nil
		})
		if err != nil {
			t.Fatalf("groundtruth: %v", err)
		}
		return ops
	})
}

// finish completes every op in flight, makes every group member commit what
// it returned, and reads every key to its end.
func (s *sim) finish() error {
	for slot := range s.procs {
		if s.procs[slot].pending != nil {
			if err := s.complete(slot); err != nil {
				return err
			}
		}
		if p := s.procs[slot]; p.role == member && p.dirty {
			if err := s.invokeMember(p); err != nil {
				return err
			}
			if err := s.completeCommit(p, true); err != nil {
				return err
			}
		}
	}
	return s.finalReads()
}

// finalReads assigns every key to a fresh process and polls until no key
// has a visible record left. Its ops carry Extra "final": true, the mark by
// which checkers know the final reads.
func (s *sim) finalReads() error {
	p := s.newProc(producer)
	ks := make([]histories.Key, s.cfg.Keys)
	for k := range ks {
		ks[k] = histories.Key(k)
	}
	if err := s.invoke(p, &histories.Op{F: histories.FAssign, Keys: ks, Extra: finalMark()}); err != nil {
		return err
	}
	if err := s.completeAssign(p); err != nil {
		return err
	}
	for s.unread(p) {
		if err := s.invoke(p, &histories.Op{F: histories.FPoll, Mops: []histories.Mop{{F: histories.MPoll}}, Extra: finalMark()}); err != nil {
			return err
		}
		recs := s.readAssigned(p, p.pos, func() int { return s.cfg.FinalBatch })
		comp := s.completion(p, histories.OK)
		comp.Mops = []histories.Mop{{F: histories.MPoll, Records: recs}}
		if err := s.emit(comp); err != nil {
			return err
		}
	}
	return nil
}

func (s *sim) unread(p *proc) bool {
	for k := range s.logs {
		if s.logs[k].unread(p.pos[k]) {
			return true
		}
	}
	return false
}

// finalMark is the Extra of a final read's op.
func finalMark() map[string]json.RawMessage {
	return map[string]json.RawMessage{"final": json.RawMessage("true")}
}
