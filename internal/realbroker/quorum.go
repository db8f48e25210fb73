package realbroker

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// A dynamic controller quorum (KIP-853, Kafka 3.9+): the nodes find the
// quorum through controller.quorum.bootstrap.servers, and the voter set
// lives in the metadata log (kraft.version 1), written at format time by
// kafka-storage format --initial-controllers, so that AddRaftVoter and
// RemoveRaftVoter can change it while the cluster runs. A static quorum
// (controller.quorum.voters) cannot change at all.

// DynamicQuorumSince is the first Kafka release that formats a dynamic
// quorum: 3.9's and 4.x's kafka-storage format take --initial-controllers
// alike, and both set kraft.version 1 from it.
const DynamicQuorumSince = "3.9"

// CheckDynamicQuorum refuses a Kafka version that cannot run a dynamic
// quorum, naming what asked for it.
func CheckDynamicQuorum(version, askedBy string) error {
	major, minor, ok := majorMinor(version)
	switch {
	case !ok:
		return fmt.Errorf("%s: Kafka version %q is not major.minor.patch, and a dynamic quorum needs %s or later", askedBy, version, DynamicQuorumSince)
	case major < 3 || major == 3 && minor < 9:
		return fmt.Errorf("%s needs Kafka %s or later (KIP-853 dynamic voters, kraft.version 1); this run's Kafka is %s, whose quorum is static",
			askedBy, DynamicQuorumSince, version)
	}
	return nil
}

func majorMinor(version string) (major, minor int, ok bool) {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}

// Voter is a controller of a dynamic quorum: its id, the directory id its
// metadata log directory was formatted with, and its controller listener.
// AddRaftVoter names all three.
type Voter struct {
	ID          int32
	DirectoryID string // Kafka's Uuid text: 16 bytes, base64url, unpadded
	Host        string
	Port        int
}

// NewDirectoryID is a directory id for a voter: the same 16 random bytes
// as a cluster id (Kafka's Uuid), for the same reason never starting with
// '-' (an argument parser would take it for an option).
func NewDirectoryID() string { return NewClusterID() }

// InitialControllers is kafka-storage format's --initial-controllers
// value: id@host:port:directory-id for every voter, the same on every node.
func InitialControllers(voters []Voter) string {
	parts := make([]string, len(voters))
	for i, v := range voters {
		parts[i] = fmt.Sprintf("%d@%s:%d:%s", v.ID, v.Host, v.Port, v.DirectoryID)
	}
	return strings.Join(parts, ",")
}

// DynamicQuorum turns props (Properties of a node of all) into a dynamic
// quorum's: the nodes find the quorum through
// controller.quorum.bootstrap.servers, and controller.quorum.voters, which
// would fix the voter set in the configuration, goes (the storage tool
// refuses both with --initial-controllers).
func DynamicQuorum(props map[string]string, all []Node) {
	servers := make([]string, len(all))
	for i, o := range all {
		servers[i] = fmt.Sprintf("%s:%d", o.Host, o.ControllerPort)
	}
	delete(props, "controller.quorum.voters")
	props["controller.quorum.bootstrap.servers"] = strings.Join(servers, ",")
}

// DescribeQuorum describes the metadata quorum (the brokers forward it to
// the active controller).
func (a *Admin) DescribeQuorum(ctx context.Context) (cluster.Quorum, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = "__cluster_metadata"
	t.Partitions = append(t.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, t)
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := req.RequestWith(rctx, a.cl)
	if err != nil {
		return cluster.Quorum{}, fmt.Errorf("describe quorum: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return cluster.Quorum{}, fmt.Errorf("describe quorum: %w", err)
	}
	for _, t := range resp.Topics {
		for _, pt := range t.Partitions {
			if err := kerr.ErrorForCode(pt.ErrorCode); err != nil || pt.LeaderID < 0 {
				return cluster.Quorum{}, fmt.Errorf("metadata quorum has no leader (%v)", err)
			}
			return cluster.Quorum{Leader: pt.LeaderID, Epoch: pt.LeaderEpoch, HighWatermark: pt.HighWatermark,
				Voters: replicas(pt.CurrentVoters), Observers: replicas(pt.Observers)}, nil
		}
	}
	return cluster.Quorum{}, errors.New("describe quorum: empty response")
}

func replicas(rs []kmsg.DescribeQuorumResponseTopicPartitionReplicaState) []cluster.QuorumReplica {
	out := make([]cluster.QuorumReplica, len(rs))
	for i, r := range rs {
		out[i] = cluster.QuorumReplica{ID: r.ReplicaID, LogEndOffset: r.LogEndOffset}
		if r.ReplicaDirectoryID != ([16]byte{}) {
			out[i].DirectoryID = base64.RawURLEncoding.EncodeToString(r.ReplicaDirectoryID[:])
		}
	}
	return out
}

// directoryID is a voter's directory id as the protocol carries it.
func directoryID(text string) ([16]byte, error) {
	var id [16]byte
	b, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil || len(b) != len(id) {
		return id, fmt.Errorf("directory id %q is not 16 bytes of unpadded base64url", text)
	}
	copy(id[:], b)
	return id, nil
}
