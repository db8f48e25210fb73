package docker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// probeTopic is created by the readiness check; scenario topics never look
// internal, so it cannot clash.
const probeTopic = "__kafkachaos_probe"

func newAdmin(seeds []string) (*kgo.Client, error) {
	return kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DialTimeout(2*time.Second),
		kgo.RetryTimeout(5*time.Second), kgo.MetadataMinAge(250*time.Millisecond))
}

// waitReady returns once the cluster really serves (as strong as
// cluster/local's check): metadata lists every broker, and a record
// produced with acks=all to a probe topic replicated on up to three brokers
// is fetched back. A container that exits fails the wait at once.
func (p *Provider) waitReady(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	step := "metadata"
	for ctx.Err() == nil {
		for _, n := range p.nodes {
			if why := p.exited(ctx, n); why != "" {
				return fmt.Errorf("cluster/docker: node %d %s during startup\n%s", n.id, why, p.logTails(context.WithoutCancel(ctx), 40))
			}
		}
		if last = p.brokersRegistered(ctx); last == nil {
			step = "probe topic"
			if last = p.createTopic(ctx, cluster.TopicSpec{Name: probeTopic, Partitions: 1,
				ReplicationFactor: int16(min(3, len(p.nodes)))}, true); last == nil {
				step = "produce and fetch"
				if last = p.roundTrip(ctx); last == nil {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(300 * time.Millisecond):
		}
	}
	return fmt.Errorf("cluster/docker: cluster not serving after %s (stuck at %s: %v)\n%s", limit, step, last, p.logTails(context.WithoutCancel(ctx), 40))
}

func (p *Provider) brokersRegistered(ctx context.Context) error {
	resp, err := p.metadata(ctx, nil)
	if err != nil {
		return err
	}
	if len(resp.Brokers) != len(p.nodes) {
		return fmt.Errorf("metadata lists %d of %d brokers", len(resp.Brokers), len(p.nodes))
	}
	return nil
}

func (p *Provider) metadata(ctx context.Context, topics []string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, mt)
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return req.RequestWith(rctx, p.admin)
}

// roundTrip produces one record to the probe topic and fetches it back.
func (p *Provider) roundTrip(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	value := []byte(p.id + "-" + strconv.FormatInt(time.Now().UnixNano(), 10))
	rec, err := p.admin.ProduceSync(rctx, &kgo.Record{Topic: probeTopic, Value: value}).First()
	if err != nil {
		return fmt.Errorf("probe produce: %w", err)
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(p.seeds()...), kgo.ConsumePartitions(
		map[string]map[int32]kgo.Offset{probeTopic: {rec.Partition: kgo.NewOffset().At(rec.Offset)}}))
	if err != nil {
		return err
	}
	defer c.Close()
	for rctx.Err() == nil {
		fs := c.PollFetches(rctx)
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) {
				return fmt.Errorf("probe fetch: %w", fe.Err)
			}
		}
		for _, r := range fs.Records() {
			if r.Offset == rec.Offset && string(r.Value) == string(value) {
				return nil
			}
		}
	}
	return fmt.Errorf("probe fetch: record at offset %d not read back", rec.Offset)
}

// CreateTopics creates topics and waits until every partition has a leader.
func (p *Provider) CreateTopics(ctx context.Context, topics ...cluster.TopicSpec) error {
	for _, t := range topics {
		if t.ReplicationFactor == 0 {
			t.ReplicationFactor = int16(min(3, len(p.nodes)))
		}
		if err := p.createTopic(ctx, t, false); err != nil {
			return fmt.Errorf("cluster/docker: creating topic %q: %w", t.Name, err)
		}
	}
	return nil
}

func (p *Provider) createTopic(ctx context.Context, t cluster.TopicSpec, existsOK bool) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 10000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = t.Name, t.Partitions, t.ReplicationFactor
	configs := map[string]string{}
	for k, v := range t.Configs {
		configs[k] = v
	}
	if t.MinInsyncReplicas > 0 {
		configs["min.insync.replicas"] = strconv.Itoa(t.MinInsyncReplicas)
	}
	for k, v := range configs {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, kmsg.StringPtr(v)
		rt.Configs = append(rt.Configs, c)
	}
	req.Topics = append(req.Topics, rt)
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, p.admin)
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
	return p.waitLeaders(ctx, t.Name, t.Partitions)
}

// waitLeaders waits until metadata shows a leader for each partition.
func (p *Provider) waitLeaders(ctx context.Context, topic string, partitions int32) error {
	for {
		resp, err := p.metadata(ctx, []string{topic})
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
func (p *Provider) Leader(ctx context.Context, topic string, partition int32) (int32, error) {
	resp, err := p.metadata(ctx, []string{topic})
	if err != nil {
		return -1, fmt.Errorf("cluster/docker: leader of %s/%d: %w", topic, partition, err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return -1, fmt.Errorf("cluster/docker: leader of %s/%d: %w", topic, partition, err)
		}
		for _, pt := range t.Partitions {
			if pt.Partition != partition {
				continue
			}
			if err := kerr.ErrorForCode(pt.ErrorCode); err != nil || pt.Leader < 0 {
				return -1, fmt.Errorf("cluster/docker: %s/%d has no leader (%v)", topic, partition, err)
			}
			return pt.Leader, nil
		}
	}
	return -1, fmt.Errorf("cluster/docker: %s/%d does not exist", topic, partition)
}

// ActiveController returns the node leading the KRaft metadata quorum
// (metadata's ControllerID is a random broker under KRaft, so it is asked
// with DescribeQuorum instead).
func (p *Provider) ActiveController(ctx context.Context) (int32, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = "__cluster_metadata"
	t.Partitions = append(t.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, t)
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, p.admin)
	if err != nil {
		return -1, fmt.Errorf("cluster/docker: describe quorum: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return -1, fmt.Errorf("cluster/docker: describe quorum: %w", err)
	}
	for _, t := range resp.Topics {
		for _, pt := range t.Partitions {
			if err := kerr.ErrorForCode(pt.ErrorCode); err != nil || pt.LeaderID < 0 {
				return -1, fmt.Errorf("cluster/docker: metadata quorum has no leader (%v)", err)
			}
			return pt.LeaderID, nil
		}
	}
	return -1, errors.New("cluster/docker: describe quorum: empty response")
}
