package embedded

import (
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// committed asks the cluster for group's committed offsets of t/0 and t/1
// as a librdkafka consumer does before its first poll, without joining.
func committed(t *testing.T, bootstrap, group string) ([]kafka.TopicPartition, error) {
	t.Helper()
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": bootstrap, "group.id": group, "log_level": 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	topic := "t"
	return c.Committed([]kafka.TopicPartition{{Topic: &topic, Partition: 0}, {Topic: &topic, Partition: 1}}, 3000)
}

// TestOffsetFetchOfUnknownGroupIsNoOffset: kfake answers GROUP_ID_NOT_FOUND
// for a group that never joined or committed; the provider answers as Kafka
// does, "no offset" per partition, and a group with commits is kfake's.
func TestOffsetFetchOfUnknownGroupIsNoOffset(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 2})
	got, err := committed(t, e.Bootstrap(), "never")
	if err != nil {
		t.Fatalf("committed offsets of a group that never committed: %v, want none", err)
	}
	for _, tp := range got {
		if tp.Error != nil || tp.Offset != kafka.OffsetInvalid {
			t.Errorf("%v: offset %v error %v, want %v and no error", tp, tp.Offset, tp.Error, kafka.OffsetInvalid)
		}
	}

	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": e.Bootstrap(), "group.id": "g", "log_level": 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	topic := "t"
	if _, err := c.CommitOffsets([]kafka.TopicPartition{{Topic: &topic, Partition: 1, Offset: 7}}); err != nil {
		t.Fatal(err)
	}
	got, err = committed(t, e.Bootstrap(), "g")
	if err != nil || len(got) != 2 || got[0].Offset != kafka.OffsetInvalid || got[1].Offset != 7 {
		t.Fatalf("committed offsets of g: %v %v, want [none, 7]", got, err)
	}
}

// TestFaultsComeBeforeTheCorrection: a request fault on OffsetFetch acts
// before the provider's own answer, so a dropped fetch is not answered.
func TestFaultsComeBeforeTheCorrection(t *testing.T) {
	e := startCluster(t, cluster.TopicSpec{Name: "t", Partitions: 2})
	f, err := e.DropConnections(cluster.RequestFault{Keys: []int16{int16(kmsg.OffsetFetch)}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Remove()
	if got, err := committed(t, e.Bootstrap(), "never"); err == nil {
		t.Fatalf("committed under a fault dropping every OffsetFetch: %v, want an error", got)
	}
	if f.Hits() == 0 {
		t.Fatal("the fault caught no OffsetFetch")
	}
}

// TestNoOffsetsAnswersEveryVersion: the answer names each partition asked
// for, in the pre-v8 (one group) and v8+ (groups) shapes.
func TestNoOffsetsAnswersEveryVersion(t *testing.T) {
	old := kmsg.NewPtrOffsetFetchRequest()
	old.Version, old.Group = 7, "g"
	old.Topics = []kmsg.OffsetFetchRequestTopic{{Topic: "t", Partitions: []int32{0, 2}}}
	r := noOffsets(old)
	if r.ErrorCode != 0 || len(r.Topics) != 1 || len(r.Topics[0].Partitions) != 2 ||
		r.Topics[0].Partitions[1].Partition != 2 || r.Topics[0].Partitions[1].Offset != -1 {
		t.Errorf("v7 answer: %+v", r)
	}
	groups := kmsg.NewPtrOffsetFetchRequest()
	groups.Version = 9
	groups.Groups = []kmsg.OffsetFetchRequestGroup{
		{Group: "a", Topics: []kmsg.OffsetFetchRequestGroupTopic{{Topic: "t", Partitions: []int32{1}}}},
		{Group: "b"},
	}
	r = noOffsets(groups)
	if len(r.Groups) != 2 || r.Groups[0].Group != "a" || r.Groups[0].ErrorCode != 0 ||
		r.Groups[0].Topics[0].Partitions[0].Offset != -1 || len(r.Groups[1].Topics) != 0 {
		t.Errorf("v9 answer: %+v", r)
	}
	if fetchedGroups(old)[0] != "g" || len(fetchedGroups(groups)) != 2 {
		t.Errorf("groups asked about: %v, %v", fetchedGroups(old), fetchedGroups(groups))
	}
}
