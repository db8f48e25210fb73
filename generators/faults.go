package generators

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
	KindIsolateLeaderReplication}

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

func knownKind(kind string) bool {
	for _, k := range kinds {
		if k == kind {
			return true
		}
	}
	return false
}
