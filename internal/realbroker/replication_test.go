package realbroker

import (
	"strings"
	"testing"
)

func TestReplicationRulesDropBrokerPortBothWays(t *testing.T) {
	got := ReplicationRules("kafkachaos", []string{"10.213.7.2", "10.213.7.3"}, 9092)
	want := `flush chain inet kafkachaos replication_in
flush chain inet kafkachaos replication_out
add rule inet kafkachaos replication_in ip saddr { 10.213.7.2, 10.213.7.3 } tcp dport 9092 drop
add rule inet kafkachaos replication_in ip saddr { 10.213.7.2, 10.213.7.3 } tcp sport 9092 drop
add rule inet kafkachaos replication_out ip daddr { 10.213.7.2, 10.213.7.3 } tcp dport 9092 drop
add rule inet kafkachaos replication_out ip daddr { 10.213.7.2, 10.213.7.3 } tcp sport 9092 drop
`
	if got != want {
		t.Errorf("rules:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "9093") {
		t.Errorf("rules touch the controller port:\n%s", got)
	}
}

func TestReplicationRulesHealOnlyFlushes(t *testing.T) {
	got := ReplicationRules("t", nil, 9092)
	want := "flush chain inet t replication_in\nflush chain inet t replication_out\n"
	if got != want {
		t.Errorf("heal rules %q, want %q", got, want)
	}
	// Healing twice renders the same flushes: idempotent by construction.
	if again := ReplicationRules("t", []string{}, 9092); again != got {
		t.Errorf("empty peers %q differ from nil peers %q", again, got)
	}
}

func TestCheckBrokerLinks(t *testing.T) {
	nodes := []int32{1, 2, 3}
	if err := CheckBrokerLinks([][2]int32{{1, 2}, {1, 3}}, nodes); err != nil {
		t.Errorf("leader-follower links rejected: %v", err)
	}
	for want, links := range map[string][][2]int32{
		"names the clients": {{1, c}},
		"no node 4":         {{1, 4}},
		"from itself":       {{2, 2}},
	} {
		if err := CheckBrokerLinks(links, nodes); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err %v, want it to say %q", links, err, want)
		}
	}
}
