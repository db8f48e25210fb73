package sim

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model"
)

// pollTimeout bounds one poll op's wait for records.
const pollTimeout = 100 * time.Millisecond

// commitTimeout bounds one commit; a commit that has not answered by then
// completes info.
const commitTimeout = 5 * time.Second

// consumer is one consumer process at a time: in a group (subscribe,
// commit as the strategy says) or assigned every key (no commits). Faults
// reach it through its request channel, and it acts on them between ops
// or at the crash point asked for.
type consumer struct {
	e      *env
	period time.Duration
	r      *rand.Rand
	i      int // index among the workload's consumers
	pid    int64
	gen    *clientGen
	faults chan faultReq

	rebalances rebalances
	mu         sync.Mutex
	commits    []histories.Op // background commits, recorded between ops
	pending    faultReq       // a crash point waiting for its moment
}

// faultReq is a fault the nemesis asked a consumer for: a crash at point,
// or churn (point churnRequest); step is the scenario's fault.
type faultReq struct {
	kind, point string
	step        int
}

const churnRequest = "churn"

// landed records the pending fault's op, now that it acts, and clears it.
func (c *consumer) landed() {
	r := c.pending
	c.pending = faultReq{}
	detail := map[string]any{"step": r.step, "consumer": c.i, "process": c.pid}
	if r.point != churnRequest {
		detail["point"] = r.point
	}
	c.e.landed(r.kind, r.kind, detail)
}

// group reports whether the consumer joins the group. With transactional
// copiers the consumer hop is theirs: the consumers then only watch,
// assigned every key, input and output, committing nothing (as
// workers/ does).
func (c *consumer) group() bool {
	return c.e.s.Workload.Mode == generators.ModeGroup && c.e.s.Consumer.CommitStrategy != model.CommitTransactional
}

// keys are what the consumer reads: the input keys, and the output keys
// too when it watches copiers.
func (c *consumer) keys() []histories.Key {
	if c.e.s.Consumer.CommitStrategy == model.CommitTransactional {
		return c.e.allKeys()
	}
	return c.e.allKeys()[:len(c.e.parts)]
}

func (c *consumer) opts() []kgo.Opt {
	s := c.e.s
	opts := []kgo.Opt{kgo.FetchMaxWait(odd(c.r, pollTimeout/2)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	if s.Consumer.IsolationLevel == model.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if !c.group() {
		parts := map[string]map[int32]kgo.Offset{}
		for _, k := range c.keys() {
			t, p := c.e.topicOf(k)
			if parts[t] == nil {
				parts[t] = map[int32]kgo.Offset{}
			}
			parts[t][p] = kgo.NewOffset().AtStart()
		}
		return append(opts, kgo.ConsumePartitions(parts))
	}
	// KIP-848 groups (ServerSideBalancer): with the classic protocol kgo
	// holds a lock across JoinGroup that commits wait on, not durably
	// blocked, so the bubble's clock stops while the join waits on it.
	opts = append(opts, kgo.ConsumerGroup(s.Workload.Group), kgo.ConsumeTopics(s.Keys.Topic),
		kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()), kgo.BlockRebalanceOnPoll())
	opts = append(opts, c.rebalances.opts()...)
	if s.Consumer.CommitStrategy == model.CommitAuto {
		return append(opts, kgo.AutoCommitInterval(max(s.Consumer.AutoCommitInterval.D(), 10*time.Millisecond)),
			kgo.AutoCommitCallback(c.noteAutoCommit))
	}
	return append(opts, kgo.DisableAutoCommit())
}

// session is the group session timeout of s, at least 200ms.
func session(s generators.Scenario) time.Duration {
	return max(s.Consumer.SessionTimeout.D(), 200*time.Millisecond)
}

// noteAutoCommit keeps a background commit kgo made, as a commit op to
// record once no op of this process is open.
func (c *consumer) noteAutoCommit(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
	offs, failed := commitOffsets(c.e, req, resp)
	if len(offs) == 0 {
		return
	}
	t := histories.OK
	if err != nil || failed {
		t = histories.Info
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	op := histories.Op{Type: t, F: histories.FCommit, Group: c.e.s.Workload.Group,
		Mops: []histories.Mop{{F: histories.MCommit, Offsets: offs}}}
	if err != nil {
		op.Error = err.Error()
	}
	c.commits = append(c.commits, op)
}

// commitOffsets are the next offsets req committed per key, and whether
// any partition's answer was an error (or missing).
func commitOffsets(e *env, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse) (map[histories.Key]int64, bool) {
	offs := map[histories.Key]int64{}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if k := e.keyOf(p.Partition); k >= 0 && t.Topic == e.s.Keys.Topic {
				offs[k] = p.Offset
			}
		}
	}
	failed := resp == nil
	if resp != nil {
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				failed = failed || p.ErrorCode != 0
			}
		}
	}
	return offs, failed
}

// recordCommits records the background commits reported since the last
// call, under this process, after they happened.
func (c *consumer) recordCommits() {
	c.mu.Lock()
	ops := c.commits
	c.commits = nil
	c.mu.Unlock()
	for _, op := range ops {
		inv := c.e.rec.Record(&histories.Op{Process: c.pid, Type: histories.Invoke, F: op.F, Group: op.Group, Mops: op.Mops})
		op.Process = inv.Process
		c.e.rec.Record(&op)
	}
}

// begin starts a client under a new process and records how it takes its
// keys: subscribe in a group, assign otherwise.
func (c *consumer) begin() error {
	g, err := newGen(c.e, c.r, c.opts())
	if err != nil {
		return err
	}
	c.gen = g
	if c.group() {
		c.e.took(c.pid, histories.FSubscribe, c.e.s.Workload.Group, c.keys(), nil)
	} else {
		c.e.took(c.pid, histories.FAssign, "", c.keys(), nil)
	}
	return nil
}

// run polls until the workload ends, then leaves.
func (c *consumer) run() error {
	if err := c.begin(); err != nil {
		return err
	}
	for c.e.sleepUntilNext(c.r, c.period) {
		if err := c.between(); err != nil {
			return err
		}
		c.poll()
		c.gen.cl.AllowRebalance()
	}
	c.recordCommits()
	c.gen.cl.CloseAllowingRebalance()
	c.recordCommits()
	return nil
}

// between acts on a fault asked for since the last op: churn and a crash
// anywhere now, a crash at a commit point once that point comes.
func (c *consumer) between() error {
	c.recordCommits()
	select {
	case f := <-c.faults:
		c.pending = f
	default:
	}
	switch p := c.pending.point; {
	case p == churnRequest:
		c.landed()
		c.gen.cl.CloseAllowingRebalance() // a clean leave: the group rebalances at once
		c.recordCommits()
		return c.replace()
	case p == generators.CrashAnywhere || (p != "" && !c.reachable(p)):
		return c.crashNow()
	}
	return nil
}

// reachable reports whether crash point will come in this consumer's
// ops: the commit points only where there are commits, and before-commit
// only where processing comes before the commit.
func (c *consumer) reachable(point string) bool {
	if point == generators.CrashBeforeCommit && c.e.s.Consumer.CommitStrategy == model.CommitBeforeProcessing {
		return false
	}
	return c.commitsAround()
}

// commitsAround reports whether this consumer makes commits a crash point
// can fall around.
func (c *consumer) commitsAround() bool {
	cs := c.e.s.Consumer.CommitStrategy
	return c.group() && (cs == model.CommitAfterProcessing || cs == model.CommitBeforeProcessing)
}

// crashNow crashes the consumer, as the pending request asked.
func (c *consumer) crashNow() error {
	c.landed()
	c.gen.crash(c.e)
	c.e.rec.Record(&histories.Op{Process: c.pid, Type: histories.Info, F: histories.FCrash})
	return c.replace()
}

func (c *consumer) replace() error {
	c.pid = c.e.pid()
	return c.begin()
}

// poll is one poll op and, for commit-after-processing, its commit op.
func (c *consumer) poll() {
	group := ""
	if c.group() {
		group = c.e.s.Workload.Group
	}
	c.e.rec.Record(&histories.Op{Process: c.pid, Type: histories.Invoke, F: histories.FPoll, Group: group,
		Mops: []histories.Mop{{F: histories.MPoll}}})
	ctx, cancel := context.WithTimeout(c.gen.ctx, odd(c.r, pollTimeout))
	fs := c.gen.cl.PollRecords(ctx, max(1, c.e.s.Workload.PollBatch))
	cancel()
	recs, next := fetched(c.e, fs)
	done := &histories.Op{Process: c.pid, Type: histories.OK, F: histories.FPoll, Group: group, Rebalance: c.rebalances.Take()}
	switch {
	case len(recs) == 0 || !c.commitsAround():
		done.Mops = []histories.Mop{{F: histories.MPoll, Records: recs}}
		c.e.rec.Record(done)
	case c.e.s.Consumer.CommitStrategy == model.CommitBeforeProcessing:
		c.commitThenProcess(done, recs, next)
	default:
		c.processThenCommit(done, recs, next)
	}
}

// commitThenProcess commits, then processes only if the commit is proven;
// an unproven commit leaves the poll's outcome unknown.
func (c *consumer) commitThenProcess(done *histories.Op, recs map[histories.Key][]histories.Record, next map[histories.Key]int64) {
	err := c.commit(next)
	commit := histories.Mop{F: histories.MCommit, Offsets: next}
	switch {
	case err != nil:
		done.Type, done.Error = histories.Info, err.Error()
		done.Mops = []histories.Mop{commit, {F: histories.MPoll, Records: recs}}
	case c.crashDue(generators.CrashAfterCommit):
		done.Mops = []histories.Mop{commit, {F: histories.MPoll}}
		c.e.rec.Record(done)
		c.crashNow()
		return
	default:
		done.Mops = []histories.Mop{commit, {F: histories.MPoll, Records: recs}}
	}
	c.e.rec.Record(done)
}

// processThenCommit records the processed poll, then commits in a commit
// op of its own.
func (c *consumer) processThenCommit(done *histories.Op, recs map[histories.Key][]histories.Record, next map[histories.Key]int64) {
	done.Mops = []histories.Mop{{F: histories.MPoll, Records: recs}}
	c.e.rec.Record(done)
	if c.crashDue(generators.CrashBeforeCommit) {
		c.crashNow()
		return
	}
	mops := []histories.Mop{{F: histories.MCommit, Offsets: next}}
	inv := c.e.rec.Record(&histories.Op{Process: c.pid, Type: histories.Invoke, F: histories.FCommit, Group: done.Group, Mops: mops})
	t := histories.OK
	err := c.commit(next)
	if err != nil {
		t = histories.Info
	}
	c.e.rec.Complete(inv, t, mops, err)
	if err == nil && c.crashDue(generators.CrashAfterCommit) {
		c.crashNow()
	}
}

// crashDue reports whether the pending request is a crash at point.
func (c *consumer) crashDue(point string) bool {
	return c.pending.point == point
}

// commit commits next synchronously; any error leaves it unknown (kgo
// retries inside the call).
func (c *consumer) commit(next map[histories.Key]int64) error {
	offs := map[int32]kgo.EpochOffset{}
	for k, o := range next {
		offs[c.e.parts[k]] = kgo.EpochOffset{Epoch: -1, Offset: o}
	}
	ctx, cancel := context.WithTimeout(c.gen.ctx, commitTimeout)
	defer cancel()
	var result error
	c.gen.cl.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{c.e.s.Keys.Topic: offs},
		func(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			result = err
			if _, failed := commitOffsets(c.e, req, resp); failed && err == nil {
				result = firstError(resp)
			}
		})
	return result
}

func firstError(resp *kmsg.OffsetCommitResponse) error {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return err
			}
		}
	}
	return errors.New("sim: commit answered without every partition")
}
