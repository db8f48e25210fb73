package groundtruth

import "github.com/kafkachaos/kafkachaos/histories"

// consumerRead is one ok op's reads of one key by a consumer outside any
// group.
type consumerRead struct {
	op   int
	k    int64
	refs []ref
	// prev is the same process's previous ok op that read k, with no assign
	// or subscribe in between; -1 when none.
	prev int
}

// consumerReads lists, in history order, the reads that injectors may
// tamper with without making a group lose or re-deliver a record. Removing a
// read must also leave the value read elsewhere (see readElsewhere), or it
// becomes a lost write.
func consumerReads(ops []histories.Op, f *facts) []consumerRead {
	var out []consumerRead
	last := map[kv]int{} // (process, key) -> index in out of its last read
	for i := range ops {
		op := &ops[i]
		if op.F == histories.FAssign || op.F == histories.FSubscribe {
			for id := range last {
				if id.k == op.Process {
					delete(last, id)
				}
			}
			continue
		}
		if op.Type != histories.OK || op.Group != "" {
			continue
		}
		for _, k := range sortedReadKeys(op) {
			cr := consumerRead{op: i, k: k, refs: readsOf(op, i, k), prev: -1}
			if j, ok := last[kv{op.Process, k}]; ok {
				cr.prev = j
			}
			last[kv{op.Process, k}] = len(out)
			out = append(out, cr)
		}
	}
	return out
}

func sortedReadKeys(op *histories.Op) []int64 {
	seen := map[int64]bool{}
	var ks []int64
	for _, m := range op.Mops {
		for k := range m.Records {
			if !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

// injectPollSkip drops the first record a consumer's poll returned for a
// key it had read before: between two polls, it skipped a record.
func injectPollSkip(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	var cands []consumerRead
	for _, cr := range consumerReads(ops, f) {
		if cr.prev >= 0 && len(cr.refs) >= 2 && f.droppable(ops, cr, cr.refs[0]) {
			cands = append(cands, cr)
		}
	}
	i, err := pick(ch, len(cands))
	if err != nil {
		return Injection{}, err
	}
	return just(f.dropRead(ops, cands[i], cands[i].refs[0]), PollSkip)
}

// injectIntPollSkip drops a record from the middle of one poll.
func injectIntPollSkip(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	var cands []consumerRead
	for _, cr := range consumerReads(ops, f) {
		if len(cr.refs) >= 3 && f.droppable(ops, cr, cr.refs[1]) {
			cands = append(cands, cr)
		}
	}
	i, err := pick(ch, len(cands))
	if err != nil {
		return Injection{}, err
	}
	return just(f.dropRead(ops, cands[i], cands[i].refs[1]), IntPollSkip)
}

// injectNonmonotonicPoll makes a consumer's poll start with the last record
// its previous poll of that key returned.
func injectNonmonotonicPoll(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	all := consumerReads(ops, f)
	var cands []consumerRead
	for _, cr := range all {
		if cr.prev >= 0 {
			cands = append(cands, cr)
		}
	}
	i, err := pick(ch, len(cands))
	if err != nil {
		return Injection{}, err
	}
	c := cands[i]
	prev := all[c.prev]
	again := *prev.refs[len(prev.refs)-1].record(ops, c.k)
	first := c.refs[0]
	recs := ops[first.op].Mops[first.mop].Records
	recs[c.k] = append([]histories.Record{again}, recs[c.k]...)
	return just(ops, NonmonotonicPoll)
}

// injectIntNonmonotonicPoll makes a poll return its last record of a key
// twice.
func injectIntNonmonotonicPoll(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	cands := consumerReads(ops, f)
	i, err := pick(ch, len(cands))
	if err != nil {
		return Injection{}, err
	}
	c := cands[i]
	last := c.refs[len(c.refs)-1]
	recs := ops[last.op].Mops[last.mop].Records
	recs[c.k] = append(recs[c.k], recs[c.k][last.rec])
	return just(ops, IntNonmonotonicPoll)
}

// injectDuplicateDelivery has a fresh member of a group process a record the
// group already processed, as a member restarting from a stale commit does.
func injectDuplicateDelivery(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	type delivered struct {
		group string
		k     int64
		r     histories.Record
	}
	var cands []delivered
	for i := range ops {
		op := &ops[i]
		if op.Type != histories.OK || op.Group == "" {
			continue
		}
		for _, m := range op.Mops {
			for k, rs := range m.Records {
				for _, r := range rs {
					cands = append(cands, delivered{op.Group, k, r})
				}
			}
		}
	}
	i, err := pick(ch, len(cands))
	if err != nil {
		return Injection{}, err
	}
	a := &appender{ops: ops, next: f.maxProc}
	a.read(cands[i].group, cands[i].k, cands[i].r)
	return just(a.ops, DuplicateDelivery)
}

// injectLostDelivery raises a group's last commit of a key past a record no
// member processed.
func injectLostDelivery(ops []histories.Op, f *facts, ch Chooser) (Injection, error) {
	type commitAt struct {
		op  int
		k   int64
		off int64
	}
	lastCommit := map[kv]commitAt{} // (group index, key)
	groups := map[string]int64{}
	processed := map[kv]bool{} // (key, offset) processed by some group
	for i := range ops {
		op := &ops[i]
		if op.Type != histories.OK || op.Group == "" {
			continue
		}
		if _, ok := groups[op.Group]; !ok {
			groups[op.Group] = int64(len(groups))
		}
		for _, m := range op.Mops {
			for k, o := range m.Offsets {
				lastCommit[kv{groups[op.Group], k}] = commitAt{i, k, o}
			}
			for k, rs := range m.Records {
				for _, r := range rs {
					processed[kv{k, r.Offset}] = true
				}
			}
		}
	}
	if len(groups) > 1 {
		return Injection{}, ErrNotApplicable // processed is not kept per group
	}
	vis := visibleOffsets(ops, f)
	type cand struct {
		c  commitAt
		to int64
	}
	var cands []cand
	for _, k := range f.keys {
		c, ok := lastCommit[kv{0, k}]
		if !ok {
			continue
		}
		for _, o := range vis[k] {
			if o >= c.off && !processed[kv{k, o}] {
				cands = append(cands, cand{c, o + 1})
				break
			}
		}
	}
	i, err := pick(ch, len(cands))
	if err != nil {
		return Injection{}, err
	}
	c := cands[i]
	for _, m := range ops[c.c.op].Mops {
		if m.F == histories.MCommit {
			m.Offsets[c.c.k] = c.to
		}
	}
	return just(ops, LostDelivery)
}

// droppable reports whether dropping read r of cr makes a skip and nothing
// else. Outside the final reads the record must be read elsewhere too, or it
// becomes a lost write. In the final reads it must be read nowhere else: a
// record an earlier op read that the final reads lack is lost-after-read.
func (f *facts) droppable(ops []histories.Op, cr consumerRead, r ref) bool {
	if ops[cr.op].Process != f.finalProc {
		return readElsewhere(ops, f, cr.k, r)
	}
	return f.okReads[kv{cr.k, r.record(ops, cr.k).Value}] == 1
}

// dropRead drops read r of cr. A record dropped from the final reads is
// then read by a fresh consumer after them, which proves it in the log (it
// is not unseen) without being an earlier read (it is not lost-after-read).
func (f *facts) dropRead(ops []histories.Op, cr consumerRead, r ref) []histories.Op {
	rec := *r.record(ops, cr.k)
	removeRead(ops, cr.k, r)
	if ops[cr.op].Process != f.finalProc {
		return ops
	}
	a := &appender{ops: ops, next: f.maxProc}
	a.read("", cr.k, rec)
	return a.ops
}

// readElsewhere reports whether some other ok op also read the record at r.
func readElsewhere(ops []histories.Op, f *facts, k int64, r ref) bool {
	return f.okReads[kv{k, r.record(ops, k).Value}] >= 2
}
