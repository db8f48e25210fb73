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
