package client

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/client/clienttest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

func startCluster(t testing.TB, partitions int32) *embedded.Provider {
	t.Helper()
	return embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "t", Partitions: partitions}}})
}

// polled returns the values of key k read by ok polls of process p.
func polled(ops []histories.Op, p int64, k histories.Key) []int64 {
	var out []int64
	for _, o := range clienttest.OpsOf(ops, p) {
		if o.F != histories.FPoll || o.Type != histories.OK {
			continue
		}
		for _, m := range o.Mops {
			for _, r := range m.Records[k] {
				out = append(out, r.Value)
			}
		}
	}
	return out
}
