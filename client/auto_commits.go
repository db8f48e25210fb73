package client

import (
	"sync"

	"github.com/kafkachaos/kafkachaos/histories"
)

// AutoCommits are the automatic commits a consumer's client proved (the
// broker stored them) that no op records yet: a client reports them from
// its own threads, and the consumer records them as ok commit ops once no
// op of its process is open (Record). Safe for concurrent use.
type AutoCommits struct {
	mu   sync.Mutex
	list []map[histories.Key]int64
}

// Note keeps a proven commit of offs, the next offset per key.
func (a *AutoCommits) Note(offs map[histories.Key]int64) {
	if len(offs) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.list = append(a.list, offs)
}

// Record records each commit kept since the last call as an ok commit op
// of ops' process: recorded when reported, after it happened.
func (a *AutoCommits) Record(ops *ConsumerOps) {
	a.mu.Lock()
	list := a.list
	a.list = nil
	a.mu.Unlock()
	for _, offs := range list {
		mops := []histories.Mop{{F: histories.MCommit, Offsets: offs}}
		ops.Complete(ops.Invoke(histories.FCommit, mops, nil), histories.OK, mops, nil)
	}
}

// Proven reports whether a kept commit stored exactly offs (each key at
// its offset); that commit is taken, so that it is not recorded again.
func (a *AutoCommits) Proven(offs map[histories.Key]int64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, c := range a.list {
		if covers(c, offs) {
			a.list = append(a.list[:i], a.list[i+1:]...)
			return true
		}
	}
	return false
}

// Past reports whether a kept commit stored a key past the first record
// got holds of it: that commit covered a record the poll fetched.
func (a *AutoCommits) Past(got *Fetched) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.list {
		for k, off := range c {
			if recs := got.Records[k]; len(recs) > 0 && off > recs[0].Offset {
				return true
			}
		}
	}
	return false
}

// covers reports whether commit stored every offset of offs.
func covers(commit, offs map[histories.Key]int64) bool {
	for k, off := range offs {
		if at, ok := commit[k]; !ok || at != off {
			return false
		}
	}
	return true
}
