package checkers

import "github.com/kafkachaos/kafkachaos/histories"

// Source is a history that can be streamed several times. Check scans it
// twice: once to build the version orders, once to judge every op against
// them. The Op passed to f may be reused between calls, so the checker copies
// what it keeps.
//
// It is the one method of histories.Source, declared here so that checkers
// depend on the shape of a history, not on how it is stored.
type Source interface {
	Scan(f func(*histories.Op) error) error
}

// Ops is a Source over a slice of ops already in memory.
type Ops []histories.Op

// Scan calls f on each op in order and stops at the first error.
func (s Ops) Scan(f func(*histories.Op) error) error {
	for i := range s {
		if err := f(&s[i]); err != nil {
			return err
		}
	}
	return nil
}
