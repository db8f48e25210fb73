package cluster

import (
	"strings"
	"testing"
)

// TestSpecValidateNamesTheField: each bad spec is refused with an error
// naming the field (and the topic) that is wrong.
func TestSpecValidateNamesTheField(t *testing.T) {
	bad := []struct {
		spec Spec
		want string
	}{
		{Spec{Brokers: -1}, "cluster spec: brokers = -1"},
		{Spec{Topics: []TopicSpec{{Partitions: 1}}}, "cluster spec: topics[0]: name is empty"},
		{Spec{Topics: []TopicSpec{{Name: "a", Partitions: 0}}}, `cluster spec: topics[0]: topic "a": partitions = 0`},
		{Spec{Brokers: 3, Topics: []TopicSpec{{Name: "a", Partitions: 1, ReplicationFactor: 4}}},
			`cluster spec: topics[0]: topic "a": replication factor 4 exceeds 3 brokers`},
		{Spec{Topics: []TopicSpec{{Name: "a", Partitions: 1, ReplicationFactor: 2, MinInsyncReplicas: 3}}},
			`cluster spec: topics[0]: topic "a": min.insync.replicas 3 exceeds replication factor 2`},
		{Spec{Topics: []TopicSpec{{Name: "a", Partitions: 1}, {Name: "a", Partitions: 1}}},
			`cluster spec: topics[1]: duplicate topic "a"`},
	}
	for _, c := range bad {
		if err := c.spec.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("spec %+v: %v, want %q...", c.spec, err, c.want)
		}
	}
	if err := (Spec{Topics: []TopicSpec{{Name: "a", Partitions: 2}}}).Validate(); err != nil {
		t.Errorf("good spec: %v", err)
	}
}
