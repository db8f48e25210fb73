package generators

import (
	"slices"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/model"
)

// Remove-broker, add-broker and the consumer group protocol need Kafka
// 4.0; the other kinds and the classic protocol need nothing.
func TestKafkaNeeds(t *testing.T) {
	s := Baseline("needs", "local", 60*time.Second)
	s.Nemesis = []Fault{
		{Kind: KindKill, Start: Duration(time.Second), Duration: Duration(time.Second)},
		{Kind: KindRemoveBroker, Start: Duration(5 * time.Second), Duration: Duration(time.Second)},
		{Kind: KindAddBroker, Start: Duration(10 * time.Second), Duration: Duration(time.Second)},
	}
	var fields []string
	for _, n := range KafkaNeeds(s) {
		fields = append(fields, n.Field+" "+n.Min)
	}
	if want := []string{"nemesis[1].kind 4.0", "nemesis[2].kind 4.0"}; !slices.Equal(fields, want) {
		t.Errorf("needs %v, want %v", fields, want)
	}
	s.Nemesis = nil
	s.Consumer.GroupProtocol, s.Consumer.CommitStrategy = GroupConsumer, model.CommitAfterProcessing
	if n := KafkaNeeds(s); len(n) != 1 || n[0].Field != "consumer.group-protocol" || n[0].Min != "4.0" {
		t.Errorf("group-protocol consumer: needs %+v, want consumer.group-protocol on 4.0", n)
	}
	s.Consumer.GroupProtocol = GroupClassic
	if n := KafkaNeeds(s); len(n) != 0 {
		t.Errorf("classic protocol, no faults: needs %+v, want none", n)
	}
}

func TestKafkaAtLeast(t *testing.T) {
	for _, c := range []struct {
		version string
		want    bool
	}{{"4.0.0", true}, {"4.4.0", true}, {"4.0.0-rc1", true}, {"10.0.0", true}, {"3.9.1", false}, {"3.3.2", false}, {"4.0", true}} {
		got, err := KafkaAtLeast(c.version, "4.0")
		if err != nil || got != c.want {
			t.Errorf("KafkaAtLeast(%q, 4.0) = %v, %v; want %v", c.version, got, err, c.want)
		}
	}
	for _, v := range []string{"", "4", "latest", "x.1.0"} {
		if _, err := KafkaAtLeast(v, "4.0"); err == nil {
			t.Errorf("KafkaAtLeast(%q) accepted a version without major.minor", v)
		}
	}
}
