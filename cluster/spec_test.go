package cluster

import "testing"

func TestSpecValidateNamesTheField(t *testing.T) {
	bad := []Spec{
		{Brokers: -1},
		{Topics: []TopicSpec{{Partitions: 1}}},
		{Topics: []TopicSpec{{Name: "a", Partitions: 0}}},
		{Brokers: 3, Topics: []TopicSpec{{Name: "a", Partitions: 1, ReplicationFactor: 4}}},
		{Topics: []TopicSpec{{Name: "a", Partitions: 1, ReplicationFactor: 2, MinInsyncReplicas: 3}}},
		{Topics: []TopicSpec{{Name: "a", Partitions: 1}, {Name: "a", Partitions: 1}}},
	}
	for i, s := range bad {
		if err := s.Validate(); err == nil {
			t.Errorf("spec %d %+v: no error", i, s)
		}
	}
	if err := (Spec{Topics: []TopicSpec{{Name: "a", Partitions: 2}}}).Validate(); err != nil {
		t.Errorf("good spec: %v", err)
	}
}
