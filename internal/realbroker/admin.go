package realbroker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Admin sends a provider's own requests (readiness, topics, leaders) to its
// brokers over franz-go, never through the clients under test.
type Admin struct {
	cl    *kgo.Client
	seeds []string
}

// NewAdmin is an admin client of the brokers at seeds. Short timeouts and a
// small metadata age: it is asked about leaders right after faults.
func NewAdmin(seeds []string) (*Admin, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DialTimeout(2*time.Second),
		kgo.RetryTimeout(5*time.Second), kgo.MetadataMinAge(250*time.Millisecond))
	if err != nil {
		return nil, err
	}
	return &Admin{cl: cl, seeds: seeds}, nil
}

// Close releases the client's connections.
func (a *Admin) Close() { a.cl.Close() }

// Metadata asks for the brokers and the given topics (nil: every topic).
func (a *Admin) Metadata(ctx context.Context, topics []string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, mt)
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return req.RequestWith(rctx, a.cl)
}

// CreateTopics creates topics and waits until every partition has a leader.
// A topic without a replication factor gets min(3, brokers).
func (a *Admin) CreateTopics(ctx context.Context, brokers int, topics ...cluster.TopicSpec) error {
	for _, t := range topics {
		if t.ReplicationFactor == 0 {
			t.ReplicationFactor = int16(min(3, brokers))
		}
		if err := a.CreateTopic(ctx, t, false); err != nil {
			return fmt.Errorf("creating topic %q: %w", t.Name, err)
		}
	}
	return nil
}

// DeleteTopics deletes topics; one already gone is fine.
func (a *Admin) DeleteTopics(ctx context.Context, topics ...string) error {
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = 10000
	for _, name := range topics {
		t := kmsg.NewDeleteTopicsRequestTopic()
		t.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, t)
	}
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range resp.Topics {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
			errs = append(errs, fmt.Errorf("deleting topic %q: %w", *r.Topic, err))
		}
	}
	return errors.Join(errs...)
}

// CreateTopic creates t (an existing one is fine when existsOK) and waits
// until every partition has a leader.
func (a *Admin) CreateTopic(ctx context.Context, t cluster.TopicSpec, existsOK bool) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 10000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = t.Name, t.Partitions, t.ReplicationFactor
	for k, v := range topicConfigs(t) {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, kmsg.StringPtr(v)
		rt.Configs = append(rt.Configs, c)
	}
	req.Topics = append(req.Topics, rt)
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Topics {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil && !(existsOK && errors.Is(err, kerr.TopicAlreadyExists)) {
			msg := ""
			if r.ErrorMessage != nil {
				msg = ": " + *r.ErrorMessage
			}
			return fmt.Errorf("%w%s", err, msg)
		}
	}
	return a.waitLeaders(ctx, t.Name, t.Partitions)
}

// topicConfigs are t's configs with MinInsyncReplicas as its property.
func topicConfigs(t cluster.TopicSpec) map[string]string {
	configs := map[string]string{}
	for k, v := range t.Configs {
		configs[k] = v
	}
	if t.MinInsyncReplicas > 0 {
		configs["min.insync.replicas"] = strconv.Itoa(t.MinInsyncReplicas)
	}
	return configs
}

// waitLeaders waits until metadata shows a leader for each partition.
func (a *Admin) waitLeaders(ctx context.Context, topic string, partitions int32) error {
	for {
		resp, err := a.Metadata(ctx, []string{topic})
		if err == nil && len(resp.Topics) == 1 && int32(len(resp.Topics[0].Partitions)) == partitions {
			led := 0
			for _, pt := range resp.Topics[0].Partitions {
				if pt.ErrorCode == 0 && pt.Leader >= 0 {
					led++
				}
			}
			if led == int(partitions) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for leaders of %s: %w", topic, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Leader returns the node leading topic/partition, per the metadata the
// reachable brokers serve.
func (a *Admin) Leader(ctx context.Context, topic string, partition int32) (int32, error) {
	resp, err := a.Metadata(ctx, []string{topic})
	if err != nil {
		return -1, fmt.Errorf("leader of %s/%d: %w", topic, partition, err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return -1, fmt.Errorf("leader of %s/%d: %w", topic, partition, err)
		}
		for _, pt := range t.Partitions {
			if pt.Partition != partition {
				continue
			}
			if err := kerr.ErrorForCode(pt.ErrorCode); err != nil || pt.Leader < 0 {
				return -1, fmt.Errorf("%s/%d has no leader (%v)", topic, partition, err)
			}
			return pt.Leader, nil
		}
	}
	return -1, fmt.Errorf("%s/%d does not exist", topic, partition)
}

// Coordinator asks any broker which one coordinates key (a group or a
// transactional id): FindCoordinator, whose versions 4 and later take a
// list of keys and earlier ones a single key (both are filled; the client
// sends what the version it speaks has). A coordinator not yet known, as
// before the internal topic exists, is an error to retry.
func (a *Admin) Coordinator(ctx context.Context, kind cluster.CoordinatorKind, key string) (int32, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType, req.CoordinatorKey, req.CoordinatorKeys = int8(kind), key, []string{key}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return -1, err
	}
	node, code := resp.NodeID, resp.ErrorCode
	if len(resp.Coordinators) > 0 {
		node, code = resp.Coordinators[0].NodeID, resp.Coordinators[0].ErrorCode
	}
	if err := kerr.ErrorForCode(code); err != nil {
		return -1, fmt.Errorf("coordinator of %q: %w", key, err)
	}
	return node, nil
}

// ActiveController returns the node leading the KRaft metadata quorum
// (metadata's ControllerID is a random broker under KRaft, so it is asked
// with DescribeQuorum instead).
func (a *Admin) ActiveController(ctx context.Context) (int32, error) {
	q, err := a.DescribeQuorum(ctx)
	if err != nil {
		return -1, err
	}
	return q.Leader, nil
}
