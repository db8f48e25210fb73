package chaostest

import (
	"context"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

// inputEnd is what the input topic and the code's group held once the code
// was stopped: the history's final reads read the output only, so an
// acknowledged value they miss may be the code's loss, input the code had
// not consumed yet, or input the cluster lost.
type inputEnd struct {
	// at is where each value is in the input topic (its lowest offset).
	at map[int64]int64
	// committed is the group's committed offset per input partition;
	// absent when it committed none.
	committed map[int64]int64
}

// inputEndTimeout bounds the reads of the input and of the group's
// offsets.
const inputEndTimeout = time.Minute

// readInputEnd reads the input topic to its end, as the final reads read
// the output, and the group's committed offsets.
func (r *run) readInputEnd(ctx context.Context) (*inputEnd, error) {
	ctx, cancel := context.WithTimeout(ctx, inputEndTimeout)
	defer cancel()
	keys := make(map[histories.Key]client.TopicPartition, r.s.Keys.Count)
	for k := range r.s.Keys.Count {
		keys[histories.Key(k)] = client.TopicPartition{Topic: r.s.Keys.Topic, Partition: int32(k)}
	}
	km, err := client.NewKeyMap(keys)
	if err != nil {
		return nil, err
	}
	mem := client.NewMemRecorder()
	if err := client.FinalReads(ctx, client.FinalReadOptions{Bootstrap: r.prov.Bootstrap(), Keys: km, Recorder: mem,
		Process: r.procs.Next(), Logs: r.logs}); err != nil {
		return nil, fmt.Errorf("reading the input back: %w", err)
	}
	end := &inputEnd{at: map[int64]int64{}}
	for _, op := range mem.Ops() {
		if op.F != histories.FPoll || op.Type != histories.OK {
			continue
		}
		for _, m := range op.Mops {
			for _, recs := range m.Records {
				for _, rec := range recs {
					if o, ok := end.at[rec.Value]; !ok || rec.Offset < o {
						end.at[rec.Value] = rec.Offset
					}
				}
			}
		}
	}
	end.committed, err = r.committed(ctx)
	return end, err
}

// committed asks for the group's committed offsets until an answer comes
// (a broker may still be settling after the heal) or ctx ends. It reads
// them read_uncommitted, so that an open transaction of a killed start
// (its offsets not committed, and never to be) does not make the broker
// withhold the committed ones.
func (r *run) committed(ctx context.Context) (map[int64]int64, error) {
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": r.prov.Bootstrap(), "group.id": r.s.Workload.Group,
		"enable.auto.commit": false, "isolation.level": "read_uncommitted", "log_level": 0})
	if err != nil {
		return nil, fmt.Errorf("the group's offsets: %w", err)
	}
	w := &watch{c: c, in: r.s.Keys.Topic, parts: r.s.Keys.Count}
	defer w.close()
	for {
		tps, err := w.committed()
		if err == nil {
			out := map[int64]int64{}
			for _, tp := range tps {
				if tp.Offset >= 0 {
					out[int64(tp.Partition)] = int64(tp.Offset)
				}
			}
			return out, nil
		}
		if w.abandoned || !ctxsleep.For(ctx, 100*time.Millisecond) {
			return nil, fmt.Errorf("the group's offsets: %w", err)
		}
	}
}

// fates sorts the acknowledged values the output lacks: those the input
// no longer holds (the cluster lost them), those at or past the group's
// committed offset (not consumed in time), and the rest, which the group
// committed past and the code never wrote (the code's loss).
func (e *inputEnd) fates(missing []int64, parts int) (lost, unconsumed, inputLost map[int64]string) {
	lost, unconsumed, inputLost = map[int64]string{}, map[int64]string{}, map[int64]string{}
	for _, v := range missing {
		p := (v - 1) % int64(parts)
		at, held := e.at[v]
		c, ok := e.committed[p]
		switch {
		case !held:
			inputLost[v] = fmt.Sprintf("acknowledged to the harness, but input partition %d no longer holds it: the cluster lost it", p)
		case !ok:
			unconsumed[v] = fmt.Sprintf("at input offset %d; the code's group had committed no offset of input partition %d when the code was stopped", at, p)
		case at >= c:
			unconsumed[v] = fmt.Sprintf("at input offset %d; the code's group had committed input partition %d up to offset %d, not past it, when the code was stopped", at, p, c)
		default:
			lost[v] = ""
		}
	}
	return lost, unconsumed, inputLost
}

// named is the records of values why names, with why as their
// explanation and the ops of the checkers' case for each, if kept.
func (r *run) named(res checkers.Result, why map[int64]string) []Record {
	ops := map[int64][]int64{}
	for _, c := range res.Anomalies[checkers.Unseen] {
		if c.Value != nil {
			ops[*c.Value] = c.Ops
		}
	}
	var out []Record
	for v, w := range why {
		rec := Record{Partition: (v - 1) % int64(r.s.Keys.Count), Value: v, InputOffset: -1, Anomaly: checkers.Unseen, Explanation: w, Ops: ops[v]}
		if o, ok := r.input.offset(v); ok {
			rec.InputOffset = o
		}
		out = append(out, rec)
	}
	sortRecords(out)
	return out
}
