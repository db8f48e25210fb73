package embeddedtest

import (
	"context"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/generators"
)

// StartWait bounds how long Start waits for the cluster to come up.
const StartWait = 30 * time.Second

// Start starts an embedded cluster with spec for t and stops it when t
// ends; a cluster that does not start within StartWait fails t. An empty
// RunID is t's name.
func Start(t testing.TB, spec cluster.Spec) *embedded.Provider {
	t.Helper()
	if spec.RunID == "" {
		spec.RunID = t.Name()
	}
	e := embedded.New()
	ctx, cancel := context.WithTimeout(context.Background(), StartWait)
	defer cancel()
	if err := e.Start(ctx, spec); err != nil {
		t.Fatalf("embedded cluster: %v", err)
	}
	t.Cleanup(func() { e.Stop(context.Background()) })
	return e
}

// StartScenario starts an embedded cluster for t with s's brokers and its
// input and output topics, one partition per key and s's replication
// factor and min.insync.replicas; the broker log goes to a directory of
// t's.
func StartScenario(t testing.TB, s generators.Scenario) *embedded.Provider {
	t.Helper()
	spec := cluster.Spec{RunDir: t.TempDir(), Brokers: s.Cluster.Brokers}
	for _, name := range []string{s.Keys.Topic, s.Keys.OutputTopic} {
		if name != "" {
			spec.Topics = append(spec.Topics, cluster.TopicSpec{Name: name, Partitions: int32(s.Keys.Count),
				ReplicationFactor: int16(s.Topic.ReplicationFactor), MinInsyncReplicas: s.Topic.MinInsyncReplicas})
		}
	}
	return Start(t, spec)
}
