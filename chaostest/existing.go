package chaostest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster"
)

// existingName is the provider name of a cluster given by Options.Bootstrap,
// as generators.Cluster spells it.
const existingName = "external"

// adminTimeout bounds each admin request to an existing cluster.
const adminTimeout = 30 * time.Second

// existing is a cluster the harness did not start (Options.Bootstrap): it
// creates the run's topics there and deletes them at Stop, and has no
// fault hook, so only the crash kinds, which act on the code under test,
// can be asked of it. The harness never harms a cluster it was lent.
type existing struct {
	bootstrap string
	admin     *kafka.AdminClient
	topics    []string // created by Start, deleted by Stop
}

func newExisting(bootstrap string) *existing { return &existing{bootstrap: bootstrap} }

func (e *existing) Name() string                       { return existingName }
func (e *existing) Bootstrap() string                  { return e.bootstrap }
func (e *existing) Capabilities() []cluster.Capability { return nil }

// Start connects, and creates spec's topics with a replication factor the
// cluster can hold (at most its broker count).
func (e *existing) Start(ctx context.Context, spec cluster.Spec) error {
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": e.bootstrap, "log_level": 0})
	if err != nil {
		return fmt.Errorf("cluster at %s: %w", e.bootstrap, err)
	}
	e.admin = admin
	md, err := e.metadata(nil)
	if err != nil {
		return err
	}
	topics := slices.Clone(spec.Topics)
	for i := range topics {
		topics[i].ReplicationFactor = min(max(topics[i].ReplicationFactor, 1), int16(len(md.Brokers)))
	}
	return e.CreateTopics(ctx, topics...)
}

// Stop deletes the topics Start created; it is idempotent.
func (e *existing) Stop(ctx context.Context) error {
	if e.admin == nil {
		return nil
	}
	defer func() { e.admin.Close(); e.admin = nil }()
	if len(e.topics) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, adminTimeout)
	defer cancel()
	res, err := e.admin.DeleteTopics(ctx, e.topics)
	e.topics = nil
	return errors.Join(err, resultErr("deleting", res))
}

func (e *existing) CreateTopics(ctx context.Context, topics ...cluster.TopicSpec) error {
	specs := make([]kafka.TopicSpecification, len(topics))
	for i, t := range topics {
		cfg := map[string]string{}
		for k, v := range t.Configs {
			cfg[k] = v
		}
		if t.MinInsyncReplicas > 0 {
			cfg["min.insync.replicas"] = strconv.Itoa(min(t.MinInsyncReplicas, int(t.ReplicationFactor)))
		}
		specs[i] = kafka.TopicSpecification{Topic: t.Name, NumPartitions: int(t.Partitions),
			ReplicationFactor: int(t.ReplicationFactor), Config: cfg}
	}
	ctx, cancel := context.WithTimeout(ctx, adminTimeout)
	defer cancel()
	res, err := e.admin.CreateTopics(ctx, specs, kafka.SetAdminOperationTimeout(adminTimeout))
	for _, r := range res {
		if r.Error.Code() == kafka.ErrNoError {
			e.topics = append(e.topics, r.Topic)
		}
	}
	return errors.Join(err, resultErr("creating", res))
}

// resultErr names every topic an admin request failed on.
func resultErr(doing string, res []kafka.TopicResult) error {
	var errs []error
	for _, r := range res {
		if r.Error.Code() != kafka.ErrNoError {
			errs = append(errs, fmt.Errorf("%s topic %s: %w", doing, r.Topic, r.Error))
		}
	}
	return errors.Join(errs...)
}

func (e *existing) Nodes() []cluster.Node {
	md, err := e.metadata(nil)
	if err != nil {
		return nil
	}
	out := make([]cluster.Node, len(md.Brokers))
	for i, b := range md.Brokers {
		out[i] = cluster.Node{ID: b.ID, Addr: b.Host + ":" + strconv.Itoa(b.Port), Up: true}
	}
	return out
}

func (e *existing) Leader(_ context.Context, topic string, partition int32) (int32, error) {
	md, err := e.metadata(&topic)
	if err != nil {
		return 0, err
	}
	for _, p := range md.Topics[topic].Partitions {
		if p.ID == partition && p.Error.Code() == kafka.ErrNoError {
			return p.Leader, nil
		}
	}
	return 0, fmt.Errorf("cluster at %s: %s/%d has no leader in the metadata", e.bootstrap, topic, partition)
}

// metadata asks for topic's metadata (nil: the brokers only), bounded.
func (e *existing) metadata(topic *string) (md *kafka.Metadata, err error) {
	err = client.Bounded("GetMetadata", adminTimeout, func() (err error) {
		md, err = e.admin.GetMetadata(topic, false, int(adminTimeout.Milliseconds()))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cluster at %s: %w", e.bootstrap, err)
	}
	return md, nil
}
