package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// finalReadLimit bounds the final reads in virtual time.
const finalReadLimit = time.Minute

// finalExtra marks the final reads' ops, as client.FinalExtra does: the
// checkers judge lost-after-read by it.
const finalExtra = "final"

// written is one record of the log as the final reads found it, with the
// producer id and epoch the broker stored.
type written struct {
	Offset, Value int64
	Producer      int64
	Epoch         int16
}

// finalReads reads every key from its beginning to its high watermark
// (its last stable offset when read_committed), recording an assign op and
// poll ops marked final, and returns what it read per key. Reads that do
// not reach every key's end within finalReadLimit are an error saying
// which keys fell short: a history whose final reads stopped early would
// call what they missed lost.
func finalReads(e *env) (map[histories.Key][]written, error) {
	rc := e.s.Consumer.IsolationLevel == model.ReadCommitted || e.s.Producer.Transactional()
	parts := map[string]map[int32]kgo.Offset{}
	for _, k := range e.allKeys() {
		t, p := e.topicOf(k)
		if parts[t] == nil {
			parts[t] = map[int32]kgo.Offset{}
		}
		parts[t][p] = kgo.NewOffset().AtStart()
	}
	// Transaction markers are kept: a key's end may be a marker no record
	// stands at, and a reader that never sees it cannot tell it got there.
	opts := []kgo.Opt{kgo.ConsumePartitions(parts), kgo.FetchMaxWait(pollTimeout), kgo.KeepControlRecords()}
	if rc {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	g, err := newGen(e, e.rng(0x4000), opts)
	if err != nil {
		return nil, err
	}
	defer g.cl.Close()
	pid := e.pid()
	final := map[string]json.RawMessage{finalExtra: json.RawMessage("true")}
	e.took(pid, histories.FAssign, "", e.allKeys(), final)
	ends := e.ends(rc)
	got := map[histories.Key][]written{}
	next := map[histories.Key]int64{} // offset after the last record or marker read
	ctx, cancel := context.WithTimeout(context.Background(), finalReadLimit)
	defer cancel()
	for !reached(next, ends) {
		if ctx.Err() != nil {
			return got, fmt.Errorf("sim: final reads: %v and short of the end of %s", finalReadLimit, short(next, ends))
		}
		e.rec.Record(&histories.Op{Process: pid, Type: histories.Invoke, F: histories.FPoll, Extra: final,
			Mops: []histories.Mop{{F: histories.MPoll}}})
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		fs := g.cl.PollFetches(pctx)
		pcancel()
		recs := map[histories.Key][]histories.Record{}
		fs.EachRecord(func(r *kgo.Record) {
			k := e.keyAt(r.Topic, r.Partition)
			if k < 0 {
				return
			}
			next[k] = max(next[k], r.Offset+1)
			var v int64
			if _, err := fmt.Sscan(string(r.Value), &v); r.Attrs.IsControl() || err != nil {
				return
			}
			recs[k] = append(recs[k], histories.Record{Offset: r.Offset, Value: v})
			got[k] = append(got[k], written{Offset: r.Offset, Value: v, Producer: r.ProducerID, Epoch: r.ProducerEpoch})
		})
		e.rec.Record(&histories.Op{Process: pid, Type: histories.OK, F: histories.FPoll, Extra: final,
			Mops: []histories.Mop{{F: histories.MPoll, Records: recs}}})
	}
	return got, nil
}

// ends is each key's end offset as the broker has it now (nothing writes
// any more): the high watermark, or the last stable offset.
func (e *env) ends(readCommitted bool) map[histories.Key]int64 {
	ends := map[histories.Key]int64{}
	for _, k := range e.allKeys() {
		pi := e.c.fake.PartitionInfo(e.topicOf(k))
		if pi == nil {
			continue
		}
		ends[k] = pi.HighWatermark
		if readCommitted {
			ends[k] = pi.LastStableOffset
		}
	}
	return ends
}

// reached reports whether the reads got to every key's end.
func reached(next, ends map[histories.Key]int64) bool {
	for k, end := range ends {
		if next[k] < end {
			return false
		}
	}
	return true
}

// short names the keys whose reads fell short of their end, with how far
// they got.
func short(next, ends map[histories.Key]int64) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(ends)) {
		if next[k] < ends[k] {
			out = append(out, fmt.Sprintf("key %d (read to %d of %d)", k, next[k], ends[k]))
		}
	}
	return strings.Join(out, ", ")
}
