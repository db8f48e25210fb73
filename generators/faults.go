package generators

import "time"

// Fault kinds. They name what nemesis/ injects; a provider supports a kind
// when it has the capability KindCapability names.
const (
	// KindLostAck applies produce requests and answers them with an error:
	// the classic lost acknowledgement that makes a retrying producer write
	// twice.
	KindLostAck = "lost-ack"
	// KindDelay holds requests before the broker handles them.
	KindDelay = "delay"
	// KindDrop closes the client's connection instead of handling a request.
	KindDrop = "drop-connections"
	// KindLeaderShuffle elects a new leader for every partition.
	KindLeaderShuffle = "leader-shuffle"
	// KindKill takes nodes down for the window and brings them back.
	KindKill = "kill"
	// KindPause freezes nodes for the window.
	KindPause = "pause"
	// KindPartition cuts the network between nodes for the window.
	KindPartition = "partition"
	// KindCrashProducer crashes a producer; a new one (new process ids)
	// takes its place.
	KindCrashProducer = "crash-producer"
	// KindCrashConsumer crashes a consumer at Params.Point; a new one takes
	// its place.
	KindCrashConsumer = "crash-consumer"
	// KindChurn makes a group member leave cleanly and a new one join.
	KindChurn = "churn"
)

// Consumer crash points (FaultParams.Point).
const (
	CrashAnywhere     = "anywhere"
	CrashAfterCommit  = "after-commit"
	CrashBeforeCommit = "before-commit"
)

// Kinds lists every fault kind.
var kinds = []string{KindLostAck, KindDelay, KindDrop, KindLeaderShuffle, KindKill, KindPause,
	KindPartition, KindCrashProducer, KindCrashConsumer, KindChurn,
	KindCleanRestart, KindRollingRestart, KindIsolateLeader, KindBridge, KindCutClients, KindPacketLoss, KindSlowLink,
	KindIsolateLeaderReplication, KindLatency, KindDelayedRequests, KindPauseClient, KindReassign, KindRemoveBroker, KindAddBroker, KindPowerLoss, KindDiskFault, KindClockSkew,
	KindRemoveVoter, KindStallConsumer}

// Kinds returns every fault kind, in a fixed order.
func Kinds() []string { return append([]string(nil), kinds...) }

// KindCapability is the cluster capability a kind needs ("" for faults on
// clients, which every provider allows). The names are cluster/'s.
func KindCapability(kind string) string {
	switch kind {
	case KindLostAck, KindDelay, KindDrop:
		return "request-faults"
	case KindLeaderShuffle:
		return "leader-move"
	case KindKill:
		return "kill"
	case KindPause:
		return "pause"
	case KindPartition:
		return "partition"
	}
	return realCapability(kind)
}

// Instantaneous reports whether kind fires at points in time (at Start,
// then every Params.Every) rather than holding a window.
func Instantaneous(kind string) bool {
	switch kind {
	case KindLeaderShuffle, KindCrashProducer, KindCrashConsumer, KindChurn, KindRollingRestart:
		return true
	}
	return false
}

// need is what a fault kind needs of its scenario to take effect: the
// kind's availability rule, as etcd's robustness suite gives each
// failpoint an Available(config) check. A fault whose need is unmet is
// scheduled, counted and reported, and proves nothing; Available applies
// the rule, Validate refuses such a fault and the generators never draw one.
type need struct {
	senders   bool // acts on produce requests or on a producer: producers or copiers must run
	copiers   bool // acts on a copier
	txnQueues bool // acts on a txn queue
	consumers bool // acts on a consumer
	group     bool // acts on a group member, which only group-mode consumers are
	brokers   int  // fewest brokers on which it has an effect
	takesDown bool // takes nodes out: a majority must be up when it starts (see majorityUp)
	// warmup is how long after the run starts the clients it acts on are
	// up; effect how long before the run ends a step must land for its
	// effect to show. A fault needs one step between the two.
	warmup, effect time.Duration
}

// Client timings the needs use, seen on the embedded cluster with two
// loaded cores, with margin: a consumer slot has a consumer within tens of
// milliseconds; a group member owns partitions and polls records within a
// few hundred, and a crashed member's successor about a second after the
// crash (successive after-commit crashes landed 1.0s apart); a requested
// crash lands at the client's next poll or transaction, a few ops later.
const (
	clientStart = 200 * time.Millisecond
	groupJoin   = time.Second
	crashEffect = 500 * time.Millisecond
)

// needOf is each kind's availability rule, before its parameters (see
// Fault.need for those).
func needOf(kind string) need {
	switch kind {
	case KindLostAck, KindDelay, KindDrop:
		// lost-ack hits produce requests only; delay and drop are drawn
		// for what they do to sends
		return need{senders: true}
	case KindLeaderShuffle:
		return need{brokers: 2} // a new leader needs another broker
	case KindKill, KindPause, KindCleanRestart, KindRemoveBroker, KindPowerLoss, KindDiskFault:
		return need{takesDown: true}
	case KindPartition, KindBridge:
		return need{brokers: 3} // a minority of one against the rest; a bridge and two sides
	case KindIsolateLeader, KindIsolateLeaderReplication:
		return need{brokers: 2} // a leader and a follower to cut it from
	case KindCrashProducer:
		// a copier's crash lands in its next transaction
		return need{senders: true, effect: crashEffect}
	case KindCrashConsumer:
		return need{consumers: true, warmup: clientStart, effect: crashEffect}
	case KindChurn:
		return need{consumers: true, group: true, warmup: clientStart}
	case KindRemoveVoter:
		return removeVoterNeed()
	case KindStallConsumer:
		return stallNeed()
	}
	return need{} // rolling restarts, cut clients, packet loss and slow links act on any cluster
}

func knownKind(kind string) bool {
	for _, k := range kinds {
		if k == kind {
			return true
		}
	}
	return false
}
