package local

import (
	"context"
	"errors"
	"fmt"
)

// FenceClient removes the members of group whose client.id is clientID
// (realbroker's FenceClient: an admin LeaveGroup, then a check that they
// are gone), so that closing a "crashed" consumer right after commits and
// leaves nothing: its requests are refused as UNKNOWN_MEMBER_ID. It makes
// the provider a client.MemberFencer.
func (p *Provider) FenceClient(ctx context.Context, group, clientID string) error {
	if p.admin == nil {
		return errors.New("cluster/local: fence: cluster not started")
	}
	if err := p.admin.FenceClient(ctx, group, clientID); err != nil {
		return fmt.Errorf("cluster/local: %w", err)
	}
	return nil
}
