package realbroker

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func threeNodes() []Node {
	return []Node{{ID: 1, Host: "10.0.0.1", Port: 9092, ControllerPort: 9093}, {ID: 2, Host: "10.0.0.2", Port: 9092, ControllerPort: 9093},
		{ID: 3, Host: "10.0.0.3", Port: 9092, ControllerPort: 9093}}
}

// A dynamic quorum's nodes find it through the bootstrap servers and name
// no static voters (the storage tool refuses both with
// --initial-controllers); a static one keeps its voters.
func TestDynamicQuorumReplacesTheStaticVoters(t *testing.T) {
	all := threeNodes()
	static := Properties(all[0], all, "/data", nil)
	if static["controller.quorum.voters"] == "" || static["controller.quorum.bootstrap.servers"] != "" {
		t.Fatalf("static quorum: voters %q, bootstrap servers %q", static["controller.quorum.voters"], static["controller.quorum.bootstrap.servers"])
	}
	DynamicQuorum(static, all)
	if v, ok := static["controller.quorum.voters"]; ok {
		t.Errorf("dynamic quorum still names voters %q", v)
	}
	if got, want := static["controller.quorum.bootstrap.servers"], "10.0.0.1:9093,10.0.0.2:9093,10.0.0.3:9093"; got != want {
		t.Errorf("bootstrap servers %q, want %q", got, want)
	}
	if static["process.roles"] != "broker,controller" || static["controller.listener.names"] != "CONTROLLER" {
		t.Errorf("roles %q, controller listener %q: a dynamic quorum's nodes stay combined", static["process.roles"], static["controller.listener.names"])
	}
}

// --initial-controllers is id@host:port:directory-id for each voter, as
// kafka-storage format's usage spells it.
func TestInitialControllers(t *testing.T) {
	got := InitialControllers([]Voter{{ID: 1, DirectoryID: "JEXY6aqzQY-32P5TStzaFg", Host: "10.0.0.1", Port: 9093},
		{ID: 2, DirectoryID: "MvDxzVmcRsaTz33bUuRU6A", Host: "10.0.0.2", Port: 9093}})
	if want := "1@10.0.0.1:9093:JEXY6aqzQY-32P5TStzaFg,2@10.0.0.2:9093:MvDxzVmcRsaTz33bUuRU6A"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Kafka 3.9 is the first release with dynamic voters: older ones are
// refused naming what asked and the version, and a version that is no
// version too.
func TestCheckDynamicQuorumVersions(t *testing.T) {
	for version, ok := range map[string]bool{"3.9.0": true, "3.9.1": true, "4.0.2": true, "4.4.0": true, "10.0.0": true,
		"3.8.1": false, "3.6.2": false, "2.8.0": false, "4": false, "x.y.z": false} {
		err := CheckDynamicQuorum(version, "cluster.dynamic-quorum")
		if (err == nil) != ok {
			t.Errorf("%s: err = %v, want ok %v", version, err, ok)
			continue
		}
		if err != nil && (!strings.Contains(err.Error(), "cluster.dynamic-quorum") || !strings.Contains(err.Error(), version) ||
			!strings.Contains(err.Error(), DynamicQuorumSince)) {
			t.Errorf("%s: %v: want what asked, the version and %s named", version, err, DynamicQuorumSince)
		}
	}
}

// A directory id is a Kafka Uuid: 16 bytes as unpadded base64url, which
// the voter requests carry as bytes; text of any other length is refused.
func TestDirectoryIDs(t *testing.T) {
	for range 100 {
		id := NewDirectoryID()
		if strings.HasPrefix(id, "-") || len(id) != 22 {
			t.Fatalf("directory id %q: want 22 characters, not starting with '-'", id)
		}
		b, err := directoryID(id)
		if err != nil {
			t.Fatal(err)
		}
		if back := replicas(replicaStates(b)); back[0].DirectoryID != id {
			t.Fatalf("directory id %q came back from the protocol as %q", id, back[0].DirectoryID)
		}
	}
	for _, bad := range []string{"", "short", "JEXY6aqzQY-32P5TStzaFg==", "JEXY6aqzQY-32P5TStzaFgAA"} {
		if _, err := directoryID(bad); err == nil {
			t.Errorf("directory id %q accepted", bad)
		}
	}
}

// replicaStates is one replica of DescribeQuorum's answer with directory
// id dir.
func replicaStates(dir [16]byte) []kmsg.DescribeQuorumResponseTopicPartitionReplicaState {
	r := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
	r.ReplicaID, r.ReplicaDirectoryID = 1, dir
	return []kmsg.DescribeQuorumResponseTopicPartitionReplicaState{r}
}
