package generators

import (
	"slices"
	"time"
)

// Behavior:
//
// * Stops one client process (SIGSTOP) of Params.Role (producer,
//   consumer, copier, txn-queue; any when empty) for the window and lets
//   it go on (SIGCONT): needs a client of the role, once its process is
//   up, in a process of its own: workload.client-processes, or the java
//   client, whose JVM is one (then only java clients are stopped).
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
			"for the window and lets it go on (SIGCONT); needs workload.client-processes, or the java client, whose JVM is a " +
			"process of its own (then only java clients are stopped). A consumer paused past its " +
			"session timeout, or a transactional copier past its transaction timeout, wakes up a zombie: fencing must " +
			"stop what it then sends or commits.",
		Owns: []string{"role"},
		need: func(f Fault, s Scenario) need {
			n := need{warmup: processStart}
			if !s.Workload.ClientProcesses {
				n.warmup = jvmStart
			}
			switch f.Params.Role {
			case RoleProducer:
				n.senders = true
			case RoleConsumer:
				n.consumers = true
			case RoleCopier:
				n.copiers = true
			case RoleTxnQueue:
				n.txnQueues = true
			}
			return n
		},
		check: func(f Fault, field string, s *Scenario) error {
			switch {
			case f.Params.Role != "" && !slices.Contains(clientRoles(), f.Params.Role):
				return bad(field+".params.role", "%q, want producer, consumer, copier or txn-queue", f.Params.Role)
			case !s.Workload.ClientProcesses && !pausesJava(f, *s):
				return bad(field+".kind", "pause-client needs workload.client-processes, or the java client for the role it stops "+
					"(its JVM is a process of its own): an in-process client cannot be stopped alone")
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

// jvmStart is how long a java client's JVM takes to make its client: 0.4-
// 0.6 s seen alone, more beside a broker on two loaded cores.
const jvmStart = 3 * time.Second

// pausesJava reports whether f stops java clients only: its role's
// client is java, or (any role) some role with workers runs java.
func pausesJava(f Fault, s Scenario) bool {
	if f.Params.Role != "" {
		return s.ClientOf(f.Params.Role) == ClientJava
	}
	for role, n := range roles(s.Workload) {
		if n > 0 && s.ClientOf(role) == ClientJava {
			return true
		}
	}
	return false
}
