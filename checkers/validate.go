package checkers

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/histories"
)

// validate rejects ops the checker cannot interpret, naming the op and field.
// prev is the index of the previous op, or -1 before the first.
func validate(op *histories.Op, prev int64) error {
	if op.Index <= prev {
		return fmt.Errorf("op index %d: index not greater than the previous op's %d", op.Index, prev)
	}
	if !op.Type.Valid() {
		return fmt.Errorf("op index %d: field type: unknown op type %q", op.Index, op.Type)
	}
	for i := range op.Mops {
		if err := validateMop(&op.Mops[i]); err != nil {
			return fmt.Errorf("op index %d: field value[%d]: %w", op.Index, i, err)
		}
	}
	return nil
}

func validateMop(m *histories.Mop) error {
	switch m.F {
	case histories.MSend:
		if m.Offset < histories.NoOffset {
			return fmt.Errorf("send to key %d: negative offset %d", m.Key, m.Offset)
		}
	case histories.MPoll:
		for k, recs := range m.Records {
			for _, r := range recs {
				if r.Offset < 0 {
					return fmt.Errorf("poll of key %d: negative offset %d", k, r.Offset)
				}
			}
		}
	case histories.MCommit:
		for k, o := range m.Offsets {
			if o < 0 {
				return fmt.Errorf("commit of key %d: negative offset %d", k, o)
			}
		}
	default:
		return fmt.Errorf("unknown micro-op %q", m.F)
	}
	return nil
}
