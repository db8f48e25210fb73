package chaostest

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/ctxsleep"
)

const (
	// inputLanes is how many input sends are in flight at once.
	inputLanes = 4
	// inputDeliveryTimeout bounds one input send, retries included: long
	// enough to outlast a broker kill.
	inputDeliveryTimeout = 30 * time.Second
	// inputFlush bounds the wait for the last input sends' reports.
	inputFlush = 15 * time.Second
)

// InputOffsetExtra is the Extra field of an ok input send: the offset the
// value landed at in the input topic. The send itself has no offset: in
// the history a key is a pipeline, from input partition k through the code
// under test to output partition k, and a value's place in it is where the
// final reads find it in the output.
const InputOffsetExtra = "input-offset"

// inputLog produces the input: values 1..Records, value v to input
// partition (v-1) mod Partitions, paced over the first half of the run, by
// one idempotent acks=all producer (client.Producer, which records each
// send honestly: ok with proof, fail only when nothing can have landed,
// info otherwise).
type inputLog struct {
	p      *client.Producer
	cancel context.CancelFunc
	done   chan struct{}
	err    error // of the producing goroutine, read after done

	mu      sync.Mutex
	offsets map[int64]int64 // value -> input offset, for ok sends
}

func startInput(ctx context.Context, r *run, rec client.Recorder) (*inputLog, error) {
	in := &inputLog{done: make(chan struct{}), offsets: map[int64]int64{}}
	cfg := client.ProducerConfig{Acks: "all", Idempotence: true, MaxInFlight: 5, DeliveryTimeout: inputDeliveryTimeout}
	p, err := client.NewProducer(client.ProducerOptions{Bootstrap: r.prov.Bootstrap(), Config: cfg,
		Keys: client.SequentialKeys(r.s.Keys.Topic, r.s.Keys.Count), Recorder: &pipelineRecorder{Recorder: rec, in: in},
		Processes: &r.procs, Lanes: inputLanes, Logs: r.logs})
	if err != nil {
		return nil, err
	}
	in.p = p
	pctx, cancel := context.WithCancel(ctx)
	in.cancel = cancel
	go in.produce(pctx, int64(r.opts.Records), r.s.Keys.Count, r.opts.Duration/2)
	return in, nil
}

func (in *inputLog) produce(ctx context.Context, n int64, parts int, over time.Duration) {
	defer close(in.done)
	t0, every := time.Now(), over/time.Duration(n)
	for v := int64(1); v <= n; v++ {
		if err := in.p.SendAsync(ctx, histories.Key((v-1)%int64(parts)), v, nil); err != nil {
			if ctx.Err() == nil {
				in.err = err
			}
			return
		}
		if !ctxsleep.Until(ctx, t0.Add(time.Duration(v)*every)) {
			return
		}
	}
}

// close lets the input be produced to its end, within inputFlush (a slow
// start of the producer, or a broker down, may have held it back past its
// pace), then stops producing (a value not sent by then is never sent, and
// never recorded) and flushes the sends in flight, within inputFlush.
func (in *inputLog) close() error {
	wait := time.NewTimer(inputFlush)
	defer wait.Stop()
	select {
	case <-in.done:
	case <-wait.C:
	}
	in.cancel()
	<-in.done // produce returns once its ctx is cancelled
	ctx, cancel := context.WithTimeout(context.Background(), inputFlush)
	defer cancel()
	return errors.Join(in.err, in.p.Close(ctx))
}

// offset is where value v landed in the input, if its send was ok.
func (in *inputLog) offset(v int64) (int64, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	o, ok := in.offsets[v]
	return o, ok
}

// pipelineRecorder records the input producer's ops as sends to the
// pipeline: an ok send's input offset moves to InputOffsetExtra.
type pipelineRecorder struct {
	client.Recorder
	in *inputLog
}

func (pr *pipelineRecorder) Record(op *histories.Op) *histories.Op {
	if op.F == histories.FSend && op.Type == histories.OK && len(op.Mops) == 1 && op.Mops[0].Offset != histories.NoOffset {
		m := &op.Mops[0]
		pr.in.mu.Lock()
		pr.in.offsets[m.Value] = m.Offset
		pr.in.mu.Unlock()
		if op.Extra == nil {
			op.Extra = map[string]json.RawMessage{}
		}
		op.Extra[InputOffsetExtra] = json.RawMessage(strconv.FormatInt(m.Offset, 10))
		m.Offset = histories.NoOffset
	}
	return pr.Recorder.Record(op)
}

// acked is how many input sends were ok.
func (in *inputLog) acked() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.offsets)
}

// ackedValues is the values whose input sends were ok.
func (in *inputLog) ackedValues() map[int64]int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return maps.Clone(in.offsets)
}
