package realbroker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// UnregisterVerified says what Unregister checks before it returns nil.
const UnregisterVerified = "DescribeCluster v2 with fenced brokers listed the broker fenced before, and no longer lists it after"

// errNoFencedListing is a cluster whose DescribeCluster cannot list fenced
// brokers (v2, Kafka 4.0+): an unregistered broker and a fenced one look
// alike there, so an unregistration cannot be verified.
var errNoFencedListing = errors.New("the brokers answer DescribeCluster below v2 (Kafka 4.0), which cannot list fenced brokers: an unregistration cannot be verified")

// registration is broker id's registration as DescribeCluster v2 lists
// it, with fenced brokers: listed, and fenced.
func (a *Admin) registration(ctx context.Context, id int32) (listed, fenced bool, err error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeFencedBrokers = true
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return false, false, fmt.Errorf("describe cluster: %w", err)
	}
	if resp.Version < 2 {
		return false, false, errNoFencedListing
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return false, false, fmt.Errorf("describe cluster: %w (%s)", err, deref(resp.ErrorMessage))
	}
	for _, b := range resp.Brokers {
		if b.NodeID == id {
			return true, b.IsFenced, nil
		}
	}
	return false, false, nil
}

// fenceWait bounds the wait for the controller to fence a stopped broker:
// it does so when the broker's session lapses (broker.session.timeout.ms,
// 6 s in this harness's config, 9 s in Kafka's), with margin.
const fenceWait = 20 * time.Second

// Unregister removes stopped broker id's registration (UnregisterBroker,
// KIP-500's removal of a broker) once the controller has fenced it
// (fenceWait), and waits, at most VerifyTimeout, until the cluster no
// longer lists it. A broker that is still running would register again at
// its next heartbeat, so a caller stops it first.
func (c *Cluster) Unregister(ctx context.Context, id int32) error {
	if err := c.started(); err != nil {
		return err
	}
	if err := c.waitRegistration(ctx, id, fenceWait, "fenced", func(listed, fenced bool) bool { return listed && fenced }); err != nil {
		return c.wrap(err)
	}
	req := kmsg.NewPtrUnregisterBrokerRequest()
	req.BrokerID = id
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, c.admin.cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
		if err != nil {
			err = fmt.Errorf("%w (%s)", err, deref(resp.ErrorMessage))
		}
	}
	if err != nil {
		return c.wrap(fmt.Errorf("unregister broker %d: %w", id, err))
	}
	return c.wrap(c.waitRegistration(ctx, id, VerifyTimeout, "gone", func(listed, _ bool) bool { return !listed }))
}

// waitRegistration waits, at most limit, until broker id's registration
// is as want says (named state in the error).
func (c *Cluster) waitRegistration(ctx context.Context, id int32, limit time.Duration, state string, want func(listed, fenced bool) bool) error {
	wait, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		listed, fenced, err := c.admin.registration(wait, id)
		switch {
		case errors.Is(err, errNoFencedListing):
			return err
		case err == nil && want(listed, fenced):
			return nil
		}
		select {
		case <-wait.Done():
			if ctx.Err() != nil { // the step's own deadline, not the limit
				return fmt.Errorf("broker %d not %s before its step's deadline (listed %v, fenced %v, %v): %w", id, state, listed, fenced, err, ctx.Err())
			}
			return fmt.Errorf("broker %d not %s within %v (listed %v, fenced %v, %v)", id, state, limit, listed, fenced, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
