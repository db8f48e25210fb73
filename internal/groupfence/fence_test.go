package groupfence

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// cluster is a one-broker kfake cluster with topic t and an admin client.
func cluster(t *testing.T) (*kfake.Cluster, *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, client(t, c, "admin")
}

func client(t *testing.T, c *kfake.Cluster, id string) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ClientID(id))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// join makes member join consumer group g from a client whose client.id
// is clientID, as a KIP-848 member's first heartbeat does.
func join(t *testing.T, c *kfake.Cluster, clientID, member string) {
	t.Helper()
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = "g", member, 0, 5000
	req.SubscribedTopicNames, req.Topics = []string{"t"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	resp, err := req.RequestWith(context.Background(), client(t, c, clientID))
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		t.Fatalf("join of %s: %v", member, err)
	}
}

// Fence makes the members of the crashed client leave, and only them; a
// second fence finds none to fence and says so.
func TestFenceLeavesTheClientsMembers(t *testing.T) {
	c, admin := cluster(t)
	join(t, c, "crashed", "m1")
	join(t, c, "other", "m2")
	ctx := context.Background()
	if err := Fence(ctx, admin, "g", "crashed"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][]string{"crashed": nil, "other": {"m2"}} {
		if got, err := Members(ctx, admin, "g", id); err != nil || !slices.Equal(got, want) {
			t.Errorf("members of %s after the fence: %v (%v), want %v", id, got, err, want)
		}
	}
	if err := Fence(ctx, admin, "g", "crashed"); err == nil || errors.Is(err, ErrNotConsumerGroup) {
		t.Errorf("second fence: %v, want an error naming no member", err)
	}
}

// A group the coordinator knows as no consumer group (none at all, or a
// classic one) is left to the classic fence: ErrNotConsumerGroup.
func TestFenceLeavesClassicGroupsAlone(t *testing.T) {
	c, admin := cluster(t)
	classic := client(t, c, "classic")
	jg := kmsg.NewPtrJoinGroupRequest()
	jg.Group, jg.ProtocolType, jg.SessionTimeoutMillis, jg.RebalanceTimeoutMillis = "classic", "consumer", 10000, 10000
	jg.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "range"}}
	if _, err := jg.RequestWith(context.Background(), classic); err != nil {
		t.Fatal(err)
	}
	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.Groups = []string{"classic"}
	if resp, err := dg.RequestWith(context.Background(), admin); err != nil || resp.Groups[0].ErrorCode != 0 || resp.Groups[0].State == "Dead" {
		t.Fatalf("the classic group is not there to leave alone: %+v %v", resp, err)
	}
	for _, g := range []string{"classic", "none"} {
		if err := Fence(context.Background(), admin, g, "classic"); !errors.Is(err, ErrNotConsumerGroup) {
			t.Errorf("group %s: %v, want ErrNotConsumerGroup", g, err)
		}
	}
}

// The leave is a dynamic member's: its member id, member epoch -1.
func TestLeaveRequest(t *testing.T) {
	r := LeaveRequest("g", "m1")
	if r.Group != "g" || r.MemberID != "m1" || r.MemberEpoch != -1 || r.InstanceID != nil {
		t.Errorf("leave %+v: want group g, member m1, epoch -1, no instance id", r)
	}
}
