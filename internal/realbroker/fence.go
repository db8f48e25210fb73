package realbroker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/groupfence"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FenceClient removes from group every member whose client.id is clientID
// and checks that they are gone. An admin may remove dynamic members by
// member id (LeaveGroup v3+, KIP-345; KIP-571 for members still joining);
// from then on the coordinator refuses the removed member's commits,
// heartbeats and leave with UNKNOWN_MEMBER_ID, so a client closed right
// after commits nothing on its way out and its stored offsets stay
// uncommitted, as after a crash.
//
// A real broker cannot refuse a rejoin: librdkafka rejoins with a new
// member id once a heartbeat tells it it was removed (every
// heartbeat.interval.ms), so the caller must tear the client down at once.
//
// In a KIP-848 consumer group (group.protocol=consumer) the members are
// made to leave with the heartbeat the member itself would send
// (groupfence), with the same effect and the same caveat.
func (a *Admin) FenceClient(ctx context.Context, group, clientID string) error {
	if err := groupfence.Fence(ctx, a.cl, group, clientID); !errors.Is(err, groupfence.ErrNotConsumerGroup) {
		if err != nil {
			return fmt.Errorf("fence %q in consumer group %q: %w", clientID, group, err)
		}
		return nil
	}
	members, err := a.membersOf(ctx, group, clientID)
	if err != nil {
		return fmt.Errorf("fence %q in group %q: %w", clientID, group, err)
	}
	if len(members) == 0 {
		return fmt.Errorf("fence: group %q has no member with client id %q", group, clientID)
	}
	if err := a.removeMembers(ctx, group, members); err != nil {
		return fmt.Errorf("fence %q in group %q: %w", clientID, group, err)
	}
	left, err := a.membersOf(ctx, group, clientID)
	if err != nil {
		return fmt.Errorf("fence %q in group %q: verifying: %w", clientID, group, err)
	}
	if len(left) > 0 {
		return fmt.Errorf("fence %q in group %q: members %v still in the group after removing %v", clientID, group, left, members)
	}
	return nil
}

// membersOf lists the member ids of group whose client.id is clientID.
func (a *Admin) membersOf(ctx context.Context, group, clientID string) ([]string, error) {
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{group}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return nil, fmt.Errorf("describe group: %w", err)
	}
	var ids []string
	for _, g := range resp.Groups {
		if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
			return nil, fmt.Errorf("describe group: %w", err)
		}
		for _, m := range g.Members {
			if m.ClientID == clientID {
				ids = append(ids, m.MemberID)
			}
		}
	}
	return ids, nil
}

// removeMembers sends the admin LeaveGroup for members (by member id, no
// instance id) and fails on any member the coordinator did not remove.
// franz-go negotiates the version: Kafka 4 speaks only v3+, which names
// members.
func (a *Admin) removeMembers(ctx context.Context, group string, members []string) error {
	req := kmsg.NewPtrLeaveGroupRequest()
	req.Group = group
	for _, id := range members {
		m := kmsg.NewLeaveGroupRequestMember()
		m.MemberID = id
		m.Reason = kmsg.StringPtr("kafkachaos: member fenced as crashed")
		req.Members = append(req.Members, m)
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return fmt.Errorf("leave group: %w", err)
	}
	errs := []error{kerr.ErrorForCode(resp.ErrorCode)}
	for _, m := range resp.Members {
		if err := kerr.ErrorForCode(m.ErrorCode); err != nil {
			errs = append(errs, fmt.Errorf("member %s: %w", m.MemberID, err))
		}
	}
	if len(resp.Members) != len(members) && resp.ErrorCode == 0 {
		errs = append(errs, fmt.Errorf("leave group answered for %d of %d members", len(resp.Members), len(members)))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("leave group: %w", err)
	}
	return nil
}
