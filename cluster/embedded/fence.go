package embedded

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kafkachaos/kafkachaos/internal/groupfence"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FenceClient makes every group request of the members of group whose
// client id is clientID fail with UNKNOWN_MEMBER_ID before the coordinator
// acts on it: no heartbeat, no commit, no leave. A client torn down after
// this looks to the group like a process that died: its member stays until
// the session times out, and it commits nothing on the way out. In a
// KIP-848 consumer group the members leave instead, as on real brokers
// (groupfence), and the coordinator refuses the client's commits after.
func (e *Provider) FenceClient(ctx context.Context, group, clientID string) error {
	e.mu.Lock()
	admin, fake := e.admin, e.fake
	e.mu.Unlock()
	if fake == nil || admin == nil {
		return errNotStarted
	}
	if err := groupfence.Fence(ctx, admin, group, clientID); !errors.Is(err, groupfence.ErrNotConsumerGroup) {
		if err != nil {
			return fmt.Errorf("embedded cluster: fence %q in consumer group %q: %w", clientID, group, err)
		}
		return nil
	}
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{group}
	resp, err := req.RequestWith(ctx, admin)
	if err != nil {
		return fmt.Errorf("embedded cluster: fence %q in group %q: %w", clientID, group, err)
	}
	var members []string
	for _, g := range resp.Groups {
		if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
			return fmt.Errorf("embedded cluster: fence %q: describe group %q: %w", clientID, group, err)
		}
		for _, m := range g.Members {
			if m.ClientID == clientID {
				members = append(members, m.MemberID)
			}
		}
	}
	if len(members) == 0 {
		return fmt.Errorf("embedded cluster: fence: group %q has no member with client id %q", group, clientID)
	}
	fake.Fault(kfake.Fault{
		Keys:  []kmsg.Key{kmsg.Heartbeat, kmsg.OffsetCommit, kmsg.LeaveGroup, kmsg.JoinGroup, kmsg.SyncGroup},
		Group: group,
		Err:   kerr.UnknownMemberID,
		Count: -1,
		When: func(r kmsg.Request) bool {
			return slices.ContainsFunc(memberIDs(r), func(id string) bool { return slices.Contains(members, id) })
		},
	})
	return nil
}

// memberIDs returns the member ids a group request speaks for.
func memberIDs(r kmsg.Request) []string {
	switch r := r.(type) {
	case *kmsg.HeartbeatRequest:
		return []string{r.MemberID}
	case *kmsg.OffsetCommitRequest:
		return []string{r.MemberID}
	case *kmsg.JoinGroupRequest:
		return []string{r.MemberID}
	case *kmsg.SyncGroupRequest:
		return []string{r.MemberID}
	case *kmsg.LeaveGroupRequest:
		ids := []string{r.MemberID}
		for _, m := range r.Members {
			ids = append(ids, m.MemberID)
		}
		return ids
	}
	return nil
}
