package checkers

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/histories"
)

// validate rejects an op the checker cannot interpret, naming the op and
// field. prev is the index of the previous op, or -1 before the first. The
// offsets inside micro-ops are checked where pass 1 walks them anyway
// (checkMop), so that each record is visited once.
func validate(op *histories.Op, prev int64) error {
	if op.Index <= prev {
		return fmt.Errorf("op index %d: index not greater than the previous op's %d", op.Index, prev)
	}
	if !op.Type.Valid() {
		return fmt.Errorf("op index %d: field type: unknown op type %q", op.Index, op.Type)
	}
	return nil
}

// mopError names micro-op i of op in an error.
func mopError(op *histories.Op, i int, format string, args ...any) error {
	return fmt.Errorf("op index %d: field value[%d]: %s", op.Index, i, fmt.Sprintf(format, args...))
}

// checkSend and checkRecord reject negative offsets.
func checkSend(op *histories.Op, i int, m *histories.Mop) error {
	if m.Offset < histories.NoOffset {
		return mopError(op, i, "send to key %d: negative offset %d", m.Key, m.Offset)
	}
	return nil
}

func checkRecord(op *histories.Op, i int, k int64, r histories.Record) error {
	if r.Offset < 0 {
		return mopError(op, i, "poll of key %d: negative offset %d", k, r.Offset)
	}
	return nil
}

// checkOtherMop validates a mop pass 1 does not otherwise walk.
func checkOtherMop(op *histories.Op, i int, m *histories.Mop) error {
	switch m.F {
	case histories.MSend:
		return checkSend(op, i, m)
	case histories.MPoll:
		for k, recs := range m.Records {
			for _, r := range recs {
				if err := checkRecord(op, i, k, r); err != nil {
					return err
				}
			}
		}
	case histories.MCommit:
		for k, o := range m.Offsets {
			if o < 0 {
				return mopError(op, i, "commit of key %d: negative offset %d", k, o)
			}
		}
	default:
		return mopError(op, i, "unknown micro-op %q", m.F)
	}
	return nil
}
