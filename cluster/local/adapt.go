package local

import (
	"context"
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
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
	return p.CreateTopicList(ctx, topics)
}

// Verified says what each hook checks before it returns nil: the JVM's
// threads in /proc, or what realbroker reads back.
func (p *Provider) Verified(e cluster.Effect) string { return p.VerifiedEffect(string(e)) }
