package generators

import (
	"slices"
)

// Behavior:
//
// * Stops one client process (SIGSTOP) of Params.Role (producer,
//   consumer, copier, txn-queue; any when empty) for the window and lets
//   it go on (SIGCONT): needs workload.client-processes and a client of
//   the role, once its process is up (processStart).
// * Footprint: the clients of its role.
// * Scheduled by hand; a draw rule stops any client.

// KindPauseClient stops one client process (SIGSTOP) for the window and
// lets it go on (SIGCONT). A consumer paused past its session timeout, or
// a transactional copier past its transaction timeout, wakes up a zombie:
// fencing must stop what it then sends or commits. Params.Role picks the
// kind of client (any when empty).
const KindPauseClient = "pause-client"

func clientRoles() []string { return []string{RoleProducer, RoleConsumer, RoleCopier, RoleTxnQueue} }

func pauseClientKind() Kind {
	return Kind{Name: KindPauseClient,
		Doc: "Stops one client process (SIGSTOP) of Params.Role (producer, consumer, copier or txn-queue; any when empty) " +
			"for the window and lets it go on (SIGCONT); needs workload.client-processes. A consumer paused past its " +
			"session timeout, or a transactional copier past its transaction timeout, wakes up a zombie: fencing must " +
			"stop what it then sends or commits.",
		Owns: []string{"role"},
		need: func(f Fault, _ Scenario) need {
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
		},
		check: func(f Fault, field string, s *Scenario) error {
			switch {
			case !s.Workload.ClientProcesses:
				return bad(field+".kind", "pause-client needs workload.client-processes: an in-process client cannot be stopped alone")
			case f.Params.Role != "" && !slices.Contains(clientRoles(), f.Params.Role):
				return bad(field+".params.role", "%q, want producer, consumer, copier or txn-queue", f.Params.Role)
			}
			return nil
		},
		footprint: func(f Fault, _ Scenario) Footprint {
			if f.Params.Role == "" {
				return Footprint{}
			}
			return Footprint{Client: f.Params.Role + "s"}
		},
		draw: drawNone,
	}
}
