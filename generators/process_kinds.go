package generators

import "time"

// Client processes: with Workload.ClientProcesses every producer, consumer
// and copier runs in a worker process of its own, so that a client crash
// is a SIGKILL (no close, no flush, no final commit: what a crashed service
// leaves) and a client can be frozen whole by SIGSTOP.
const (
	// KindPauseClient stops one client process (SIGSTOP) for the window
	// and lets it go on (SIGCONT). A consumer paused past its session
	// timeout, or a transactional copier past its transaction timeout,
	// wakes up a zombie: fencing must stop what it then sends or commits.
	// Params.Role picks the kind of client (any when empty).
	KindPauseClient = "pause-client"
)

// Client roles (FaultParams.Role).
const (
	RoleProducer = "producer"
	RoleConsumer = "consumer"
	RoleCopier   = "copier"
)

// processStart is how long a client process takes to be up: the exec of
// the harness's binary and librdkafka's start, seen at 100-400 ms on two
// loaded cores, with margin.
const processStart = time.Second

// validateProcess checks what client processes change: the faults that
// read Params.Role, and the crash points a SIGKILL cannot aim at.
func (f Fault) validateProcess(field string, s *Scenario) error {
	if f.Kind != KindPauseClient {
		if f.Params.Role != "" {
			return bad(field+".params.role", "only pause-client reads it (kind %s)", f.Kind)
		}
	} else {
		switch {
		case !s.Workload.ClientProcesses:
			return bad(field+".kind", "pause-client needs workload.client-processes: an in-process client cannot be stopped alone")
		case f.Params.Role != "" && f.Params.Role != RoleProducer && f.Params.Role != RoleConsumer && f.Params.Role != RoleCopier && f.Params.Role != RoleTxnQueue:
			return bad(field+".params.role", "%q, want producer, consumer, copier or txn-queue", f.Params.Role)
		}
	}
	if s.Workload.ClientProcesses && f.Kind == KindCrashConsumer && f.Params.Point != "" && f.Params.Point != CrashAnywhere {
		return bad(field+".params.point", "%q: a client process is killed wherever it is (SIGKILL); want anywhere", f.Params.Point)
	}
	if s.Workload.ClientProcesses && f.Kind == KindChurn && s.Workload.Mode != ModeGroup {
		return bad(field+".kind", "churn needs group consumers")
	}
	return nil
}

// validateProcesses checks the workload's client processes: a consumer
// that auto-commits in the background may have committed, unrecorded, when
// its process is killed, and no history could say what.
func (w Workload) validateProcesses(s *Scenario) error {
	if w.ClientProcesses && w.Consumers > 0 && w.Mode == ModeGroup && s.Consumer.CommitStrategy == "auto" {
		return bad("workload.client-processes", "consumer commit-strategy auto: a killed process's background commits are unknowable; want before-processing, after-processing or transactional")
	}
	return nil
}

// pauseNeed is pause-client's availability rule for its role.
func (f Fault) pauseNeed() need {
	switch f.Params.Role {
	case RoleProducer:
		return need{senders: true, warmup: processStart}
	case RoleConsumer:
		return need{consumers: true, warmup: processStart}
	case RoleCopier:
		return need{copiers: true, warmup: processStart}
	case RoleTxnQueue:
		return need{txnQueues: true, warmup: processStart}
	}
	return need{warmup: processStart}
}
