package cluster

import "context"

// CapReassign: Reassigner (a partition's replicas moved between brokers).
// Only real brokers have it: the embedded cluster (kfake) keeps one log
// per partition and accepts a reassignment without moving anything.
const CapReassign Capability = "reassign"

// EffectReassign names Reassigner.Reassign, for EffectVerifier.
const EffectReassign Effect = "reassign"

// Reassigner moves a partition's replicas between brokers (KIP-455's
// AlterPartitionReassignments).
type Reassigner interface {
	// Replicas is topic/partition's replica list as the metadata names
	// it, preferred leader first.
	Replicas(ctx context.Context, topic string, partition int32) ([]int32, error)
	// Reassign asks the controller to make target topic/partition's
	// replicas and returns nil only once the move is complete: no
	// reassignment of it in progress, and the metadata naming exactly
	// target, every one of them in sync. Its wait has its own bound.
	Reassign(ctx context.Context, topic string, partition int32, target []int32) error
}

// CapUnregister: BrokerRemover (a broker stopped and unregistered from
// the cluster, then started again). Only real brokers have it.
const CapUnregister Capability = "unregister"

// EffectUnregister names BrokerRemover.Unregister, for EffectVerifier.
const EffectUnregister Effect = "unregister"

// BrokerRemover takes a broker out of the cluster as an operator
// decommissions one: a clean stop, then its registration removed from the
// metadata (KIP-500's UnregisterBroker), so the controller no longer
// counts it; StartNode brings it back, and it registers anew.
type BrokerRemover interface {
	NodeStopper
	// Unregister removes stopped broker id's registration and returns nil
	// only once the cluster no longer lists it. Its waits have their own
	// bounds.
	Unregister(ctx context.Context, id int32) error
}

// CapAddBroker: BrokerAdder (a new broker joins the running cluster for a
// while, then leaves it). Only the local provider has it: a new broker
// needs its own address and storage, which it makes like its others'.
const CapAddBroker Capability = "add-broker"

// EffectAddBroker names BrokerAdder.AddBroker, EffectRemoveAdded
// BrokerAdder.RemoveAdded, for EffectVerifier.
const (
	EffectAddBroker   Effect = "add-broker"
	EffectRemoveAdded Effect = "remove-added"
)

// BrokerAdder grows the cluster by a broker as an operator adds one: a
// broker-only node (no controller role) with an id no node has, pointed
// at the existing controller quorum, on storage formatted with the
// cluster's id. The added broker is not among the provider's Nodes: the
// faults that pick nodes leave it alone, and it is gone again before the
// run's heal ends.
type BrokerAdder interface {
	// AddBroker starts the new broker and returns its id only once the
	// cluster's metadata lists it unfenced; on an error nothing of it is
	// left running. Its waits have their own bounds.
	AddBroker(ctx context.Context) (int32, error)
	// RemoveAdded stops added broker id cleanly, unregisters it, and
	// returns nil only once the cluster no longer lists it and its
	// address and storage are removed (its log stays with the run).
	// Removing a broker that is gone already is not an error.
	RemoveAdded(ctx context.Context, id int32) error
}
