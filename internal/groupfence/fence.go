package groupfence

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrNotConsumerGroup is Fence's answer, having changed nothing, when the
// group is not a KIP-848 consumer group: the coordinator knows no consumer
// group by its name (GROUP_ID_NOT_FOUND, its answer for a classic group
// too) or the brokers do not speak KIP-848 at all. The caller then fences
// with the classic protocol.
var ErrNotConsumerGroup = errors.New("groupfence: not a KIP-848 consumer group")

// callTimeout bounds each request: a coordinator that does not answer
// within it leaves the member unfenced, which the caller records.
const callTimeout = 5 * time.Second

// Fence makes every member of consumer group whose client.id is clientID
// leave at the coordinator (a ConsumerGroupHeartbeat of member epoch -1 for
// its member id; kgo finds the coordinator and retries a leave that met a
// moving one), then checks that none is left.
func Fence(ctx context.Context, cl *kgo.Client, group, clientID string) error {
	switch ok, err := speaks848(ctx, cl); {
	case err != nil:
		return err
	case !ok:
		return ErrNotConsumerGroup
	}
	members, err := Members(ctx, cl, group, clientID)
	if err != nil {
		return err
	}
	if len(members) == 0 {
		return fmt.Errorf("groupfence: consumer group %q has no member with client id %q", group, clientID)
	}
	for _, id := range members {
		if err := leave(ctx, cl, group, id); err != nil {
			return err
		}
	}
	left, err := Members(ctx, cl, group, clientID)
	if err != nil {
		return fmt.Errorf("groupfence: verifying: %w", err)
	}
	if len(left) > 0 {
		return fmt.Errorf("groupfence: members %v still in consumer group %q after %v left", left, group, members)
	}
	return nil
}

// speaks848 reports whether the brokers know the consumer group APIs
// Fence sends (ConsumerGroupHeartbeat, ConsumerGroupDescribe).
func speaks848(ctx context.Context, cl *kgo.Client) (bool, error) {
	rctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(rctx, cl)
	if err != nil {
		return false, fmt.Errorf("groupfence: api versions: %w", err)
	}
	want := []int16{kmsg.ConsumerGroupHeartbeat.Int16(), kmsg.ConsumerGroupDescribe.Int16()}
	n := 0
	for _, k := range resp.ApiKeys {
		if slices.Contains(want, k.ApiKey) {
			n++
		}
	}
	return n == len(want), nil
}

// Members lists the member ids of consumer group whose client.id is
// clientID (ConsumerGroupDescribe at the group's coordinator), or
// ErrNotConsumerGroup.
func Members(ctx context.Context, cl *kgo.Client, group, clientID string) ([]string, error) {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = []string{group}
	rctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := req.RequestWith(rctx, cl)
	if err != nil {
		return nil, fmt.Errorf("groupfence: describe consumer group %q: %w", group, err)
	}
	var ids []string
	for _, g := range resp.Groups {
		err := kerr.ErrorForCode(g.ErrorCode)
		switch {
		case errors.Is(err, kerr.GroupIDNotFound):
			return nil, ErrNotConsumerGroup
		case err != nil:
			return nil, fmt.Errorf("groupfence: describe consumer group %q: %w", group, err)
		}
		for _, m := range g.Members {
			if m.ClientID == clientID {
				ids = append(ids, m.MemberID)
			}
		}
	}
	return ids, nil
}

// LeaveRequest is the heartbeat that makes member leave group: member
// epoch -1, a dynamic member's leave (-2 would park a static member).
func LeaveRequest(group, member string) *kmsg.ConsumerGroupHeartbeatRequest {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch = group, member, -1
	return req
}

// leave sends LeaveRequest and fails unless the coordinator removed the
// member (no error, member epoch -1 back).
func leave(ctx context.Context, cl *kgo.Client, group, member string) error {
	rctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := LeaveRequest(group, member).RequestWith(rctx, cl)
	if err != nil {
		return fmt.Errorf("groupfence: leave of member %s: %w", member, err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return fmt.Errorf("groupfence: leave of member %s: %w", member, err)
	}
	if resp.MemberEpoch != -1 {
		return fmt.Errorf("groupfence: leave of member %s answered member epoch %d, want -1", member, resp.MemberEpoch)
	}
	return nil
}
