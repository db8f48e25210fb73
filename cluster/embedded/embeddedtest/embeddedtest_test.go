package embeddedtest

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// A scenario's cluster has its brokers and both its topics, one partition
// per key, and is gone once the test that started it ends.
func TestStartScenarioStartsForOneTest(t *testing.T) {
	s := generators.Scenario{Cluster: generators.Cluster{Brokers: 3}, Keys: generators.SequentialKeys(2, "in", "out")}
	s.Topic.ReplicationFactor, s.Topic.MinInsyncReplicas = 3, 2
	var bootstrap string
	t.Run("inner", func(t *testing.T) {
		e := StartScenario(t, s)
		if n := len(e.Nodes()); n != 3 {
			t.Errorf("%d brokers, want 3", n)
		}
		for _, topic := range []string{"in", "out"} {
			if n := len(e.Fake().PartitionInfos(topic)); n != 2 {
				t.Errorf("topic %s: %d partitions, want 2", topic, n)
			}
		}
		bootstrap = e.Bootstrap()
	})
	for _, addr := range strings.Split(bootstrap, ",") {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Errorf("broker %s still listens after its test ended", addr)
		}
	}
}

// fatalTB records a Fatalf and ends its goroutine, as testing does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	f.TB.SkipNow() // ends the goroutine, not the outer test
}

// A cluster that cannot start fails the test with the provider's reason.
func TestStartFailsTheTestWithTheReason(t *testing.T) {
	var tb *fatalTB
	t.Run("inner", func(t *testing.T) {
		tb = &fatalTB{TB: t}
		Start(tb, cluster.Spec{Brokers: 3, ReplicationProxied: true})
		t.Error("Start returned from a cluster that did not start")
	})
	if !strings.Contains(tb.msg, "replication proxies") {
		t.Errorf("failure %q, want the provider's refusal of replication proxies", tb.msg)
	}
}
