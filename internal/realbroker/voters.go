package realbroker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// CaughtUpSlack is how many metadata records a voter added back may trail
// the leader's log end by and count as caught up: the leader appends a
// no-op every metadata.max.idle.interval.ms (500 ms) and the brokers'
// changes besides, so a voter one fetch behind is a few records short.
const CaughtUpSlack = 20

// RemoveVoterVerified and AddVoterVerified say what RemoveVoter and
// AddVoter check before they return nil.
var (
	RemoveVoterVerified = "DescribeQuorum lists the voters without it, and it among the observers (still fetching the metadata log)"
	AddVoterVerified    = fmt.Sprintf("DescribeQuorum lists it a voter again, its log end offset within %d records of the leader's", CaughtUpSlack)
)

// voterChangeTimeout bounds one voter change, its retries and its
// verification: the leader commits the new voter set within a fetch round,
// but an election after the leader removed itself, or an observer
// catching up before it can be added, takes seconds on loaded cores.
const voterChangeTimeout = 60 * time.Second

// Quorum describes the metadata quorum (DescribeQuorum).
func (c *Cluster) Quorum(ctx context.Context) (cluster.Quorum, error) {
	if err := c.started(); err != nil {
		return cluster.Quorum{}, err
	}
	q, err := c.admin.DescribeQuorum(ctx)
	return q, c.wrap(err)
}

// RemoveVoter takes v out of the voter set (RemoveRaftVoter, which the
// brokers forward to the active controller) and returns nil only once
// DescribeQuorum lists the voters without it and it among the observers:
// its node keeps running, a broker and a follower of the metadata log
// that no longer votes. Removing the active controller makes it resign
// once the new set is committed. Removing a voter that is gone already is
// not an error.
func (c *Cluster) RemoveVoter(ctx context.Context, v Voter) error {
	dir, err := directoryID(v.DirectoryID)
	if err != nil {
		return c.wrap(err)
	}
	send := func(ctx context.Context) error {
		req := kmsg.NewPtrRemoveRaftVoterRequest()
		req.VoterID, req.VoterDirectoryID = v.ID, dir
		resp, err := req.RequestWith(ctx, c.admin.cl)
		if err != nil {
			return err
		}
		return responseError(resp.ErrorCode, resp.ErrorMessage)
	}
	gone := func(q cluster.Quorum) bool {
		_, voting := q.Voter(v.ID)
		return !voting && slices.Contains(q.ObserverIDs(), v.ID)
	}
	return c.wrap(c.changeVoters(ctx, fmt.Sprintf("remove voter %d", v.ID), send, gone))
}

// AddVoter puts v back into the voter set (AddRaftVoter with its id,
// directory id and controller listener; the leader adds only an observer
// that has caught up) and returns nil only once DescribeQuorum lists it a
// voter within CaughtUpSlack of the leader's log end. Adding a voter that
// is one already only waits for that.
func (c *Cluster) AddVoter(ctx context.Context, v Voter) error {
	dir, err := directoryID(v.DirectoryID)
	if err != nil {
		return c.wrap(err)
	}
	send := func(ctx context.Context) error {
		req := kmsg.NewPtrAddRaftVoterRequest()
		req.VoterID, req.VoterDirectoryID, req.TimeoutMillis = v.ID, dir, 10000
		l := kmsg.NewAddRaftVoterRequestListener()
		l.Name, l.Host, l.Port = "CONTROLLER", v.Host, uint16(v.Port)
		req.Listeners = append(req.Listeners, l)
		resp, err := req.RequestWith(ctx, c.admin.cl)
		if err != nil {
			return err
		}
		return responseError(resp.ErrorCode, resp.ErrorMessage)
	}
	back := func(q cluster.Quorum) bool {
		lag := q.Lag(v.ID)
		return lag >= 0 && lag <= CaughtUpSlack
	}
	return c.wrap(c.changeVoters(ctx, fmt.Sprintf("add voter %d", v.ID), send, back))
}

// changeVoters sends a voter change until done says DescribeQuorum shows
// it, within voterChangeTimeout. DescribeQuorum, not the answer, decides:
// a change whose answer was lost may have been applied (and a second
// request is then refused as a duplicate), a leader that resigned answers
// with a retriable error, and an accepted change shows only once the
// quorum has caught up with it. The request is sent again only after a
// retriable failure; one Kafka refuses for good ends the wait once the
// next description does not show the change.
func (c *Cluster) changeVoters(ctx context.Context, what string, send func(context.Context) error, done func(cluster.Quorum) bool) error {
	if err := c.started(); err != nil {
		return err
	}
	wait, cancel := context.WithTimeout(ctx, voterChangeTimeout)
	defer cancel()
	var last cluster.Quorum
	var sendErr, descErr, refused error
	accepted := false
	for {
		q, err := c.admin.DescribeQuorum(wait)
		if descErr = err; err == nil {
			if last = q; done(q) {
				return nil
			}
			if refused != nil {
				return fmt.Errorf("%s: %w (quorum %+v)", what, refused, q)
			}
			if !accepted {
				rctx, rcancel := context.WithTimeout(wait, 15*time.Second)
				sendErr = send(rctx)
				rcancel()
				accepted = sendErr == nil
				var ke *kerr.Error
				if errors.As(sendErr, &ke) && !ke.Retriable {
					refused = sendErr
				}
			}
		}
		select {
		case <-wait.Done():
			return fmt.Errorf("%s: not done within %v (last answer %v; last quorum %+v, described with %v)",
				what, voterChangeTimeout, sendErr, last, descErr)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// responseError is a voter change's error code with its message.
func responseError(code int16, msg *string) error {
	if err := kerr.ErrorForCode(code); err != nil {
		return fmt.Errorf("%w (%s)", err, deref(msg))
	}
	return nil
}
