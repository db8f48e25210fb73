package docker

import (
	"context"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// CreateTopics creates topics and waits until every partition has a leader.
func (p *Provider) CreateTopics(ctx context.Context, topics ...cluster.TopicSpec) error {
	ts := make([]realbroker.Topic, len(topics))
	for i, t := range topics {
		ts[i] = realbroker.Topic(t)
	}
	return p.CreateTopicList(ctx, ts)
}
