package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/client/franz/fate"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// producer is one producer client shared by its lanes, each lane a
// process with one send open at a time. A crash replaces the client; each
// lane then records its process's crash and takes a new id.
type producer struct {
	e      *env
	period time.Duration
	r      *rand.Rand // the client's timers, drawn before each client starts
	mu     sync.Mutex
	gen    *clientGen
}

// clientGen is one incarnation of a worker's client.
type clientGen struct {
	cl     *kgo.Client
	ctx    context.Context
	cancel context.CancelFunc
	link   *link
}

// newGen makes a client on its own link; bad options are a harness error.
// Its retry backoff is its own, drawn from r: clients whose internal
// timers share a period would wake at one instant and race there.
func newGen(e *env, r *rand.Rand, opts []kgo.Opt) (*clientGen, error) {
	l := &link{c: e.c, latency: odd(r, 200*time.Microsecond)}
	backoff := odd(r, 40*time.Millisecond)
	opts = append([]kgo.Opt{kgo.SeedBrokers(e.c.seeds()...), kgo.Dialer(l.dial), kgo.DisableClientMetrics(),
		kgo.RetryBackoffFn(func(int) time.Duration { return backoff }), kgo.WithHooks(fate.Hook())}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &clientGen{cl: cl, ctx: ctx, cancel: cancel, link: l}, nil
}

// crash ends g without a goodbye: its connections close first, so its
// close reaches nobody.
func (g *clientGen) crash(e *env) {
	g.cancel()
	g.link.sever()
	e.bg.Go(func() {
		// A group member's close leaves the group, retrying for ever
		// against a network that is gone: bounded here, after which
		// the close finds the group already left.
		// A poll's blocked rebalance would hold the leave for ever.
		ctx, cancel := context.WithTimeout(context.Background(), crashLeave)
		defer cancel()
		g.cl.AllowRebalance()
		g.cl.LeaveGroupContext(ctx)
		g.cl.Close()
	})
}

// crashLeave bounds a crashed client's attempt to leave its group.
const crashLeave = 2 * time.Second

// odd is d plus up to half of d, to the nanosecond, drawn from r.
func odd(r *rand.Rand, d time.Duration) time.Duration {
	return d + time.Duration(r.Int64N(int64(d/2))) + 1
}

func producerOpts(e *env) []kgo.Opt {
	p := e.s.Producer
	opts := []kgo.Opt{kgo.DefaultProduceTopic(e.s.Keys.Topic), kgo.RecordPartitioner(kgo.ManualPartitioner())}
	switch p.Acks {
	case model.AcksNone:
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	case model.AcksLeader:
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	if !p.Idempotent() {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(max(1, p.MaxInFlight)))
	}
	if p.Retries < math.MaxInt32 {
		opts = append(opts, kgo.RecordRetries(p.Retries))
	}
	if d := p.DeliveryTimeout.D(); d > 0 {
		opts = append(opts, kgo.RecordDeliveryTimeout(d))
	}
	if d := p.RequestTimeout.D(); d > 0 {
		opts = append(opts, kgo.ProduceRequestTimeout(d))
	}
	if d := p.Linger.D(); d > 0 {
		opts = append(opts, kgo.ProducerLinger(d))
	}
	return opts
}

func (p *producer) current() *clientGen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gen
}

// newProducerGen makes a producer client with its producer id loaded:
// kgo loads it under a mutex, and sinks that wait on that mutex while the
// load waits on virtual time are not durably blocked, which stops the
// bubble's clock. Loaded here, before any send, no sink waits; a later
// reload of an idempotent producer bumps the epoch locally.
func newProducerGen(e *env, r *rand.Rand) (*clientGen, error) {
	g, err := newGen(e, r, producerOpts(e))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(g.ctx, e.s.Producer.DeliveryTimeout.D()+time.Second)
	defer cancel()
	if _, _, err := g.cl.ProducerID(ctx); err != nil {
		g.crash(e)
		return nil, fmt.Errorf("sim: loading a producer id: %w", err)
	}
	return g, nil
}

// crash replaces the client; the lanes notice between their ops.
func (p *producer) crash() error {
	g, err := newProducerGen(p.e, p.r)
	if err != nil {
		return err
	}
	p.mu.Lock()
	old := p.gen
	p.gen = g
	p.mu.Unlock()
	old.crash(p.e)
	return nil
}

// lane sends until the workload ends. Values are unique over the run:
// lane i of n sends i, i+n, i+2n, ...
func (p *producer) lane(i, n int, pid int64, r *rand.Rand) {
	g := p.current()
	// A crash the lane had no op left to notice is still its process's
	// end.
	defer func() {
		if p.current() != g {
			p.e.rec.Record(&histories.Op{Process: pid, Type: histories.Info, F: histories.FCrash})
		}
	}()
	for seq := int64(0); p.e.sleepUntilNext(r, p.period); seq++ {
		if cur := p.current(); cur != g {
			p.e.rec.Record(&histories.Op{Process: pid, Type: histories.Info, F: histories.FCrash})
			pid, g = p.e.pid(), cur
		}
		if !p.e.takeValue() {
			return
		}
		k := histories.Key(r.IntN(len(p.e.parts)))
		p.send(g, pid, k, seq*int64(n)+int64(i))
	}
}

// send is one send op: ok with the offset the broker gave (none for
// acks=0, which gets no answer); an error is judged by package fate: fail
// only for a record kgo never buffered, info otherwise, since kgo retries
// inside one call and an earlier attempt may have landed.
func (p *producer) send(g *clientGen, pid int64, k histories.Key, v int64) {
	mops := []histories.Mop{histories.Send(k, v)}
	inv := p.e.rec.Invoke(pid, histories.FSend, mops)
	ctx, cancel := context.WithTimeout(g.ctx, p.e.s.Producer.DeliveryTimeout.D()+time.Second)
	defer cancel()
	ctx, mark := fate.WithMark(ctx)
	rec := &kgo.Record{Partition: p.e.parts[k], Value: []byte(strconv.FormatInt(v, 10))}
	r, err := g.cl.ProduceSync(ctx, rec).First()
	if err != nil {
		p.e.rec.Complete(inv, fate.Outcome(err, mark.Buffered()), mops, err)
		return
	}
	done := histories.Send(k, v)
	if p.e.s.Producer.Acks != model.AcksNone {
		done.Offset = r.Offset
	}
	p.e.rec.Complete(inv, histories.OK, []histories.Mop{done}, nil)
}

// runProducers runs every producer's lanes until the workload ends.
func runProducers(e *env, wg *sync.WaitGroup) ([]*producer, error) {
	send, _, _ := periods(e.s.Workload)
	lanes := max(1, e.s.Workload.Lanes)
	n := e.s.Workload.Producers * lanes
	ps := make([]*producer, e.s.Workload.Producers)
	for i := range ps {
		r := e.rng(uint64(0x3000 + i))
		g, err := newProducerGen(e, r)
		if err != nil {
			return nil, err
		}
		ps[i] = &producer{e: e, period: send, r: r, gen: g}
		for j := range lanes {
			li := i*lanes + j
			r, pid := e.rng(uint64(0x1000+li)), e.pid() // ids in a fixed order, before any lane runs
			wg.Go(func() { ps[i].lane(li, n, pid, r) })
		}
	}
	return ps, nil
}

// close ends the current client once every lane is done.
func (p *producer) close() { p.current().cl.Close() }
