package local

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// A run whose Spec asks for DynamicQuorum formats its nodes into a dynamic
// KRaft quorum (realbroker's DynamicQuorum): each node gets a directory id
// of the harness's, every format names them all (--initial-controllers,
// kept in each node's format.log), and the voter set can change while the
// nodes run.

var _ cluster.VoterChanger = (*Provider)(nil) // RemoveRaftVoter / AddRaftVoter, verified by DescribeQuorum

// dynamicQuorumAsker names what asks for a dynamic quorum, in refusals.
const dynamicQuorumAsker = "cluster/local: a dynamic controller quorum (Spec.DynamicQuorum: a scenario's cluster.dynamic-quorum, or its remove-voter faults)"

// checkQuorumVersion refuses, before anything is made, a dynamic quorum on
// a Kafka release that cannot format one.
func checkQuorumVersion(spec cluster.Spec, version string) error {
	if !spec.DynamicQuorum {
		return nil
	}
	return realbroker.CheckDynamicQuorum(version, dynamicQuorumAsker)
}

// assignVoters gives every placed node a directory id and the quorum's
// --initial-controllers when spec asks for a dynamic quorum; before the
// nodes' configurations are written, which then name no static voters.
func (p *Provider) assignVoters(spec cluster.Spec) {
	if !spec.DynamicQuorum {
		return
	}
	voters := make([]realbroker.Voter, len(p.nodes))
	for i, n := range p.nodes {
		n.dirID = realbroker.NewDirectoryID()
		voters[i] = n.voter()
	}
	initial := realbroker.InitialControllers(voters)
	for _, n := range p.nodes {
		n.initial = initial
	}
	p.opts.Logf("cluster/local: run %s: dynamic controller quorum, initial controllers %s", p.id, initial)
}

// voter is n as a voter of the quorum.
func (n *node) voter() realbroker.Voter {
	return realbroker.Voter{ID: n.id, DirectoryID: n.dirID, Host: n.ip, Port: n.ctrlPort}
}

// dynamicQuorum reports whether the running cluster was formatted with a
// dynamic quorum.
func (p *Provider) dynamicQuorum() bool { return len(p.nodes) > 0 && p.nodes[0].dirID != "" }

// quorumCaps is CapQuorum before Start (a Spec may ask for a dynamic
// quorum) and on a cluster that has one; a started static quorum cannot
// change.
func (p *Provider) quorumCaps() []cluster.Capability {
	if p.id != "" && !p.dynamicQuorum() {
		return nil
	}
	return []cluster.Capability{cluster.CapQuorum}
}

// Quorum describes the metadata quorum (DescribeQuorum).
func (p *Provider) Quorum(ctx context.Context) (cluster.Quorum, error) {
	return p.Cluster.Quorum(ctx)
}

// RemoveVoter takes node id's controller out of the voter set
// (realbroker's RemoveVoter: verified by DescribeQuorum).
func (p *Provider) RemoveVoter(ctx context.Context, id int32) error {
	v, err := p.quorumVoter(id)
	if err != nil {
		return err
	}
	return p.Cluster.RemoveVoter(ctx, v)
}

// AddVoter puts node id's controller back with the directory id and
// listener it was formatted with (realbroker's AddVoter: verified caught
// up by DescribeQuorum).
func (p *Provider) AddVoter(ctx context.Context, id int32) error {
	v, err := p.quorumVoter(id)
	if err != nil {
		return err
	}
	return p.Cluster.AddVoter(ctx, v)
}

// quorumVoter is node id as a voter, or why the cluster cannot change its
// voters.
func (p *Provider) quorumVoter(id int32) (realbroker.Voter, error) {
	n, err := p.node(id)
	if err != nil {
		return realbroker.Voter{}, err
	}
	if n.dirID == "" {
		return realbroker.Voter{}, fmt.Errorf("cluster/local: node %d: the cluster's controller quorum is static (controller.quorum.voters), and its voters cannot change: start it with %s",
			id, strings.TrimPrefix(dynamicQuorumAsker, "cluster/local: "))
	}
	return n.voter(), nil
}

// Healthy is realbroker's health check and, in a dynamic quorum, every
// node a voter: a cluster whose voter was not put back is not whole, and
// a run that reuses it would start short of one.
func (p *Provider) Healthy(ctx context.Context) error {
	if err := p.Cluster.Healthy(ctx); err != nil || !p.dynamicQuorum() {
		return err
	}
	q, err := p.Cluster.Quorum(ctx)
	if err != nil {
		return err
	}
	if ids := slices.Sorted(slices.Values(p.IDs())); !slices.Equal(q.VoterIDs(), ids) {
		return fmt.Errorf("cluster/local: the controller quorum's voters are %v, not every node %v", q.VoterIDs(), ids)
	}
	return nil
}

// HealthChecked says what Healthy checks.
func (p *Provider) HealthChecked() string {
	if !p.dynamicQuorum() {
		return p.Cluster.HealthChecked()
	}
	return p.Cluster.HealthChecked() + "; every node a voter of the dynamic controller quorum (DescribeQuorum)"
}
