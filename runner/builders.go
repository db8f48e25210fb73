package runner

import (
	"context"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/nemesis"
	"github.com/kafkachaos/kafkachaos/workers/proc"
)

// The runner's side of each fault kind: how it is built, one entry per
// kind. What a kind is, the capability it needs and which providers draw
// it is the registry's (package generators); a provider that lacks the
// capability is refused before any builder runs (Unsupported), so a
// builder only assembles the fault from the provider's hook.

// clusterBuilder makes a fault of a cluster kind against c's started
// provider.
type clusterBuilder func(c ClusterFaults, f generators.Fault) (nemesis.Fault, error)

// clusterBuilders is the maker of each kind that acts on the cluster: every
// kind with a capability (generators.KindCapability). A scenario written by
// hand may name any of them on any provider, so the table is the same for
// all; the provider's capabilities decide which run.
func clusterBuilders() map[string]clusterBuilder {
	return map[string]clusterBuilder{
		generators.KindLostAck:                  ClusterFaults.lostAck,
		generators.KindDelay:                    ClusterFaults.delay,
		generators.KindDrop:                     ClusterFaults.drop,
		generators.KindLeaderShuffle:            ClusterFaults.leaderShuffle,
		generators.KindKill:                     ClusterFaults.kill,
		generators.KindPause:                    ClusterFaults.pause,
		generators.KindPartition:                ClusterFaults.partition,
		generators.KindCleanRestart:             ClusterFaults.real,
		generators.KindRollingRestart:           ClusterFaults.real,
		generators.KindIsolateLeader:            ClusterFaults.real,
		generators.KindBridge:                   ClusterFaults.real,
		generators.KindCutClients:               ClusterFaults.real,
		generators.KindPacketLoss:               ClusterFaults.real,
		generators.KindSlowLink:                 ClusterFaults.real,
		generators.KindIsolateLeaderReplication: ClusterFaults.real,
		generators.KindLatency:                  ClusterFaults.latency,
		generators.KindDelayedRequests:          ClusterFaults.delayedRequests,
		generators.KindReassign:                 ClusterFaults.reassignFault,
		generators.KindRemoveBroker:             ClusterFaults.removeBrokerFault,
		generators.KindAddBroker:                ClusterFaults.addBrokerFault,
		generators.KindPowerLoss:                ClusterFaults.powerLoss,
		generators.KindDiskFault:                ClusterFaults.diskFault,
		generators.KindClockSkew:                ClusterFaults.clockFault,
		generators.KindRemoveVoter:              ClusterFaults.removeVoterFault,
	}
}

// clientBuilder makes a fault of a client kind on the run's own clients:
// inProcess on the workload's slots, procs on the worker processes.
type clientBuilder struct {
	inProcess func(sc *schedule, f generators.Fault) nemesis.Fault
	procs     func(pool *proc.Pool, f generators.Fault) nemesis.Fault
}

// clientBuilders is the maker of each kind that acts on the run's clients:
// every kind without a capability, which every provider allows.
func clientBuilders() map[string]clientBuilder {
	return map[string]clientBuilder{
		generators.KindCrashProducer: {
			inProcess: func(sc *schedule, f generators.Fault) nemesis.Fault {
				return &clientFault{name: f.Kind, do: sc.crashProducer}
			},
			// copiers and txn queues are transactional producers
			procs: procKill(generators.RoleProducer, generators.RoleCopier, generators.RoleTxnQueue),
		},
		generators.KindCrashConsumer: {
			inProcess: func(sc *schedule, f generators.Fault) nemesis.Fault {
				point := crashPoint(f.Params.Point)
				return &clientFault{name: f.Kind, do: func(ctx context.Context) (any, error) { return sc.crashConsumer(ctx, point) }}
			},
			procs: procKill(generators.RoleConsumer),
		},
		generators.KindChurn: {
			inProcess: func(sc *schedule, f generators.Fault) nemesis.Fault { return &clientFault{name: f.Kind, do: sc.churn} },
			procs: func(pool *proc.Pool, f generators.Fault) nemesis.Fault {
				return &clientFault{name: f.Kind, do: func(ctx context.Context) (any, error) { return pool.Churn(ctx) }}
			},
		},
		generators.KindPauseClient: {
			inProcess: func(sc *schedule, f generators.Fault) nemesis.Fault { return sc.pauseJVM(f.Params.Role) },
			procs:     func(pool *proc.Pool, f generators.Fault) nemesis.Fault { return pauseProcess(pool, f.Params.Role) },
		},
		generators.KindStallConsumer: {
			inProcess: func(sc *schedule, _ generators.Fault) nemesis.Fault { return &stallConsumer{hold: sc.stallHere} },
			procs: func(pool *proc.Pool, _ generators.Fault) nemesis.Fault {
				return &stallConsumer{hold: stallProcess(pool)}
			},
		},
	}
}

// procKill is a crash of a worker process of one of roles (SIGKILL).
func procKill(roles ...string) func(pool *proc.Pool, f generators.Fault) nemesis.Fault {
	return func(pool *proc.Pool, f generators.Fault) nemesis.Fault {
		return &clientFault{name: f.Kind, do: func(ctx context.Context) (any, error) { return pool.Kill(ctx, roles...) }}
	}
}

// lostAck applies produce requests and answers them REQUEST_TIMED_OUT.
func (c ClusterFaults) lostAck(f generators.Fault) (nemesis.Fault, error) {
	sel := cluster.RequestFault{Probability: f.Params.Probability, Keys: []int16{0}} // produce
	return nemesis.LostAck(c.Provider.(cluster.RequestFaulter), sel, kafkaRequestTimedOut), nil
}

// delay holds requests for Params.Delay before the broker handles them.
func (c ClusterFaults) delay(f generators.Fault) (nemesis.Fault, error) {
	sel := cluster.RequestFault{Probability: f.Params.Probability}
	return nemesis.Delay(c.Provider.(cluster.RequestFaulter), sel, f.Params.Delay.D()), nil
}

// drop closes the client's connection on a produce or fetch.
func (c ClusterFaults) drop(f generators.Fault) (nemesis.Fault, error) {
	sel := cluster.RequestFault{Probability: f.Params.Probability, Keys: []int16{0, 1}} // produce and fetch
	return nemesis.DropConnections(c.Provider.(cluster.RequestFaulter), sel), nil
}

func (c ClusterFaults) leaderShuffle(generators.Fault) (nemesis.Fault, error) {
	return nemesis.ShuffleLeaders(c.Provider.(cluster.LeaderMover)), nil
}

// kill takes Params.Target's nodes down (nemesis.Real), or the fixed or
// seeded nodes of picker.
func (c ClusterFaults) kill(f generators.Fault) (nemesis.Fault, error) {
	if f.Params.Target != "" {
		return c.real(f)
	}
	return nemesis.Kill(c.Provider.(cluster.NodeKiller), c.picker(f)), nil
}

// pause freezes nodes as kill takes them down.
func (c ClusterFaults) pause(f generators.Fault) (nemesis.Fault, error) {
	if f.Params.Target != "" {
		return c.real(f)
	}
	return nemesis.Pause(c.Provider.(cluster.NodePauser), c.picker(f)), nil
}

// partition cuts the brokers in halves, or Params.Target's off the rest.
func (c ClusterFaults) partition(f generators.Fault) (nemesis.Fault, error) {
	if f.Params.Target != "" {
		return c.realAs(f, nemesis.RealIsolate)
	}
	return c.realAs(f, nemesis.RealHalves)
}
