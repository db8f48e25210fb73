package realbroker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// HealthChecked says what Healthy checks, for the nemesis ops that cite it.
const HealthChecked = "every broker registered in metadata and answering on its own connection; " +
	"every partition of every topic led, its ISR all of its replicas"

// maxReasons bounds how many unhealthy partitions an error lists: after a
// broker loss every partition it held is short, and one line each would
// bury the broker that explains them.
const maxReasons = 5

// Healthy returns nil when the cluster is whole again, as etcd's robustness
// suite checks before and after each failpoint: metadata registers exactly
// the brokers ids (the readiness probe's first step), each of them answers
// a request sent to it alone (a paused or cut broker does not), and every
// partition of every topic has a leader and its full ISR (followers caught
// up after a heal). Otherwise its error names what is not.
func (a *Admin) Healthy(ctx context.Context, ids []int32) error {
	resp, err := a.Metadata(ctx, nil)
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	if err := registered(resp, ids); err != nil {
		return err
	}
	for _, id := range ids {
		if err := a.answers(ctx, id); err != nil {
			return err
		}
	}
	return partitionsWhole(resp)
}

// registered checks that metadata lists exactly the brokers ids.
func registered(resp *kmsg.MetadataResponse, ids []int32) error {
	var got []int32
	for _, b := range resp.Brokers {
		got = append(got, b.NodeID)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(ids))
	if !slices.Equal(got, want) {
		return fmt.Errorf("metadata registers brokers %v, want %v", got, want)
	}
	return nil
}

// answers sends an empty metadata request to broker id alone.
func (a *Admin) answers(ctx context.Context, id int32) error {
	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	if _, err := a.cl.Broker(int(id)).Request(rctx, req); err != nil {
		return fmt.Errorf("broker %d does not answer: %w", id, err)
	}
	return nil
}

// partitionsWhole checks that every partition in resp is led with its
// whole ISR.
func partitionsWhole(resp *kmsg.MetadataResponse) error {
	var bad []string
	n := 0
	for _, t := range resp.Topics {
		name := ""
		if t.Topic != nil {
			name = *t.Topic
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			bad, n = append(bad, fmt.Sprintf("topic %s: %v", name, err)), n+1
			continue
		}
		for _, p := range t.Partitions {
			if why := partitionUnhealthy(p); why != "" {
				n++
				if len(bad) < maxReasons {
					bad = append(bad, fmt.Sprintf("%s/%d %s", name, p.Partition, why))
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d partitions not whole: %s", n, strings.Join(bad, "; "))
}

func partitionUnhealthy(p kmsg.MetadataResponseTopicPartition) string {
	if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
		return err.Error()
	}
	if p.Leader < 0 {
		return "has no leader"
	}
	if len(p.ISR) < len(p.Replicas) {
		return fmt.Sprintf("has ISR %v of replicas %v", p.ISR, p.Replicas)
	}
	return ""
}

// WaitRegistered waits, at most limit, until broker id is registered in
// the metadata other brokers serve and answers a request of its own: a
// restarted broker listens long before it has caught up with the metadata
// log and been unfenced. exited is asked every round; its error (the node
// died again) ends the wait at once.
func (a *Admin) WaitRegistered(ctx context.Context, id int32, limit time.Duration, exited func() error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	for {
		if err := exited(); err != nil {
			return err
		}
		if last = a.isRegistered(ctx, id); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("broker %d not back in the cluster after %s: %w", id, limit, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (a *Admin) isRegistered(ctx context.Context, id int32) error {
	resp, err := a.Metadata(ctx, nil)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(resp.Brokers, func(b kmsg.MetadataResponseBroker) bool { return b.NodeID == id }) {
		return fmt.Errorf("metadata does not register broker %d", id)
	}
	return a.answers(ctx, id)
}

// Registered says what WaitRegistered checks, for the nemesis ops.
const Registered = "broker registered in metadata again and answering a request of its own"
