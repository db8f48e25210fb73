package local

import (
	"context"
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// logTails are the ends of every node's broker.log, for a failed start.
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
	return p.CreateTopicList(ctx, ts)
}
