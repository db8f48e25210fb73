package generators

import "time"

// Client processes: with Workload.ClientProcesses every producer, consumer
// and copier runs in a worker process of its own, so that a client crash
// is a SIGKILL (no close, no flush, no final commit: what a crashed service
// leaves) and a client can be frozen whole by SIGSTOP (KindPauseClient).

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

// validateProcesses checks the workload's client processes: a consumer
// that auto-commits in the background may have committed, unrecorded, when
// its process is killed, and no history could say what.
func (w Workload) validateProcesses(s *Scenario) error {
	if w.ClientProcesses && w.Consumers > 0 && w.Mode == ModeGroup && s.Consumer.CommitStrategy == "auto" {
		return bad("workload.client-processes", "consumer commit-strategy auto: a killed process's background commits are unknowable; want before-processing, after-processing or transactional")
	}
	return nil
}
