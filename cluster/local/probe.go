package local

import (
	"context"
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// waitReady returns once the cluster really serves
// (realbroker.WaitReady: every broker registered, a record produced with
// acks=all to a replicated probe topic fetched back). A node whose JVM
// exits fails the wait at once.
func (p *Provider) waitReady(ctx context.Context) error {
	startupExit := func() error {
		for _, n := range p.nodes {
			if why := n.exited(); why != "" {
				return fmt.Errorf("node %d %s during startup", n.id, why)
			}
		}
		return nil
	}
	if err := p.admin.WaitReady(ctx, p.opts.StartTimeout, len(p.nodes), p.id, startupExit); err != nil {
		return fmt.Errorf("cluster/local: %w\n%s", err, p.logTails(40))
	}
	return nil
}

func (p *Provider) logTails(lines int) string {
	var s string
	for _, n := range p.nodes {
		s += fmt.Sprintf("--- node %d log tail (%s):\n%s\n", n.id, n.logPath(), n.logTail(lines))
	}
	return s
}

// CreateTopics creates topics and waits until every partition has a leader.
func (p *Provider) CreateTopics(ctx context.Context, topics ...cluster.TopicSpec) error {
	ts := make([]realbroker.Topic, len(topics))
	for i, t := range topics {
		ts[i] = realbroker.Topic(t)
	}
	if err := p.admin.CreateTopics(ctx, len(p.nodes), ts...); err != nil {
		return fmt.Errorf("cluster/local: %w", err)
	}
	return nil
}

// Leader returns the node leading topic/partition, per the metadata the
// reachable brokers serve.
func (p *Provider) Leader(ctx context.Context, topic string, partition int32) (int32, error) {
	id, err := p.admin.Leader(ctx, topic, partition)
	if err != nil {
		return -1, fmt.Errorf("cluster/local: %w", err)
	}
	return id, nil
}

// ActiveController returns the node leading the KRaft metadata quorum.
func (p *Provider) ActiveController(ctx context.Context) (int32, error) {
	id, err := p.admin.ActiveController(ctx)
	if err != nil {
		return -1, fmt.Errorf("cluster/local: %w", err)
	}
	return id, nil
}
