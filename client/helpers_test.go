package client

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/cluster/embedded/embeddedtest"
	"github.com/kafkachaos/kafkachaos/histories"
)

func startCluster(t testing.TB, partitions int32) *embedded.Provider {
	t.Helper()
	return embeddedtest.Start(t, cluster.Spec{Topics: []cluster.TopicSpec{{Name: "t", Partitions: partitions}}})
}

// opsOf returns the ops of process p.
func opsOf(ops []histories.Op, p int64) []histories.Op {
	var out []histories.Op
	for _, o := range ops {
		if o.Process == p {
			out = append(out, o)
		}
	}
	return out
}

// polled returns the values of key k read by ok polls of process p.
func polled(ops []histories.Op, p int64, k histories.Key) []int64 {
	var out []int64
	for _, o := range opsOf(ops, p) {
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
