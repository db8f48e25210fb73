package realbroker

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ReassignTimeout bounds the wait for a reassignment to complete: the new
// replica copies the partition's log from the leader and joins the ISR,
// then the controller drops the replica it replaces. A run's log is a few
// megabytes, which takes seconds even on loaded cores; a move still under
// way after a minute is reported as not done, never waited on for ever.
const ReassignTimeout = 60 * time.Second

// ReassignVerified says what Reassign checks before it returns nil.
const ReassignVerified = "ListPartitionReassignments lists none for the partition; metadata names exactly the target replicas, all in sync"

// reassignPoll is how often a reassignment's progress is asked.
const reassignPoll = 250 * time.Millisecond

// Replicas is topic/partition's replicas and in-sync replicas, per the
// metadata the reachable brokers serve.
func (a *Admin) Replicas(ctx context.Context, topic string, partition int32) (replicas, isr []int32, err error) {
	resp, err := a.Metadata(ctx, []string{topic})
	if err != nil {
		return nil, nil, fmt.Errorf("replicas of %s/%d: %w", topic, partition, err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return nil, nil, fmt.Errorf("replicas of %s/%d: %w", topic, partition, err)
		}
		for _, pt := range t.Partitions {
			if pt.Partition == partition {
				return pt.Replicas, pt.ISR, nil
			}
		}
	}
	return nil, nil, fmt.Errorf("%s/%d does not exist", topic, partition)
}

// AlterReassignment asks the controller to make target topic/partition's
// replicas (AlterPartitionReassignments, KIP-455); it returns once the
// controller accepted, not once the move is done (see Reassign).
func (a *Admin) AlterReassignment(ctx context.Context, topic string, partition int32, target []int32) error {
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	req.TimeoutMillis = 10000
	rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
	rp.Partition, rp.Replicas = partition, slices.Clone(target)
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return fmt.Errorf("reassign %s/%d to %v: %w", topic, partition, target, err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return fmt.Errorf("reassign %s/%d to %v: %w (%s)", topic, partition, target, err, deref(resp.ErrorMessage))
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("reassign %s/%d to %v: %w (%s)", topic, partition, target, err, deref(p.ErrorMessage))
			}
		}
	}
	return nil
}

// Reassigning is the reassignment of topic/partition the controller lists
// in progress (ListPartitionReassignments), or nil when there is none.
func (a *Admin) Reassigning(ctx context.Context, topic string, partition int32) (*kmsg.ListPartitionReassignmentsResponseTopicPartition, error) {
	req := kmsg.NewPtrListPartitionReassignmentsRequest()
	req.TimeoutMillis = 5000
	rt := kmsg.NewListPartitionReassignmentsRequestTopic()
	rt.Topic, rt.Partitions = topic, []int32{partition}
	req.Topics = append(req.Topics, rt)
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return nil, fmt.Errorf("list reassignments of %s/%d: %w", topic, partition, err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, fmt.Errorf("list reassignments of %s/%d: %w (%s)", topic, partition, err, deref(resp.ErrorMessage))
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if t.Topic == topic && p.Partition == partition {
				return &p, nil
			}
		}
	}
	return nil, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// reassignDone says why topic/partition's move to target is not complete
// yet, or "" when it is (ReassignVerified).
func (a *Admin) reassignDone(ctx context.Context, topic string, partition int32, target []int32) (string, error) {
	inFlight, err := a.Reassigning(ctx, topic, partition)
	if err != nil {
		return "", err
	}
	if inFlight != nil {
		return fmt.Sprintf("in progress (replicas %v, adding %v, removing %v)",
			inFlight.Replicas, inFlight.AddingReplicas, inFlight.RemovingReplicas), nil
	}
	replicas, isr, err := a.Replicas(ctx, topic, partition)
	if err != nil {
		return "", err
	}
	return replicasAre(replicas, isr, target), nil
}

// replicasAre says how replicas and isr differ from a completed move to
// target, or "" when they do not: the replicas exactly target, in order
// (the controller keeps the order it was given: the first is the
// preferred leader), and each of them in sync.
func replicasAre(replicas, isr, target []int32) string {
	if !slices.Equal(replicas, target) {
		return fmt.Sprintf("metadata names replicas %v, not %v", replicas, target)
	}
	for _, r := range target {
		if !slices.Contains(isr, r) {
			return fmt.Sprintf("replica %d is not in sync (ISR %v)", r, isr)
		}
	}
	return ""
}

// Reassign moves topic/partition's replicas to target and waits, at most
// ReassignTimeout, until the move is complete (ReassignVerified). The
// error of a move that did not complete in time says where it stood.
func (c *Cluster) Reassign(ctx context.Context, topic string, partition int32, target []int32) error {
	if err := c.started(); err != nil {
		return err
	}
	if err := c.admin.AlterReassignment(ctx, topic, partition, target); err != nil {
		return c.wrap(err)
	}
	wait, cancel := context.WithTimeout(ctx, ReassignTimeout)
	defer cancel()
	tick := time.NewTicker(reassignPoll)
	defer tick.Stop()
	last := "not asked yet"
	for {
		why, err := c.admin.reassignDone(wait, topic, partition, target)
		switch {
		case err == nil && why == "":
			return nil
		case err != nil:
			last = err.Error() // a broker may be slow to answer under load: ask again
		default:
			last = why
		}
		select {
		case <-wait.Done():
			if ctx.Err() != nil {
				return c.wrap(fmt.Errorf("reassign %s/%d to %v: %w (it stood: %s)", topic, partition, target, ctx.Err(), last))
			}
			return c.wrap(fmt.Errorf("reassign %s/%d to %v: not complete after %v: %s", topic, partition, target, ReassignTimeout, last))
		case <-tick.C:
		}
	}
}

// Replicas is topic/partition's replica list (cluster.Reassigner).
func (c *Cluster) Replicas(ctx context.Context, topic string, partition int32) ([]int32, error) {
	if err := c.started(); err != nil {
		return nil, err
	}
	r, _, err := c.admin.Replicas(ctx, topic, partition)
	return r, c.wrap(err)
}
