package generators

import (
	"testing"
	"time"
)

// The coordinated names are the first transactional worker's id and the
// group that workload commits through; a workload without them has none.
func TestCoordinatedNamesTheRunsFirstTransactionalIDAndGroup(t *testing.T) {
	base := func(w Workload) Scenario {
		s := Scenario{Workload: w}
		s.Producer.TransactionalID = "tx"
		s.Workload.Group = "g"
		return s
	}
	for _, c := range []struct {
		name       string
		w          Workload
		txn, group string
	}{
		{"producers only", Workload{Producers: 1}, "", ""},
		{"group consumers", Workload{Consumers: 2, Mode: ModeGroup}, "", "g"},
		{"assigned consumers", Workload{Consumers: 2, Mode: ModeAssign}, "", ""},
		{"txn queues", Workload{TxnQueues: 2}, "tx-queue-0", ""},
		{"transactional copiers", Workload{Copiers: 2}, "tx-0", "g-copiers"},
		{"at-least-once copiers", Workload{Copiers: 1, CopierMode: CopyAtLeastOnce}, "", "g-copiers"},
		{"queues beside group consumers", Workload{TxnQueues: 1, Consumers: 1, Mode: ModeGroup}, "tx-queue-0", "g"},
	} {
		if txn, group := base(c.w).Coordinated(); txn != c.txn || group != c.group {
			t.Errorf("%s: txn id %q, group %q; want %q, %q", c.name, txn, group, c.txn, c.group)
		}
	}
}

// A role target is valid only when the workload plays the role.
func TestRoleTargetsNeedTheirRole(t *testing.T) {
	aim := func(target string) func(*Scenario) {
		return func(s *Scenario) {
			s.Cluster.Provider = "local"
			s.Nemesis = []Fault{{Kind: KindPause, Start: Duration(time.Second), Duration: Duration(time.Second), Params: FaultParams{Target: target}}}
		}
	}
	withQueue := func(target string) func(*Scenario) {
		return func(s *Scenario) {
			aim(target)(s)
			s.Producer.TransactionalID, s.Producer.EnableIdempotence, s.Producer.Acks = "tx", true, -1
			s.Workload.TxnQueues, s.Workload.TxnSize = 1, 3
		}
	}
	checkValidations(t, sample, []validation{
		{"txn-coordinator without transactions", aim(TargetTxnCoordinator), "nemesis[0].params.target: txn-coordinator: the workload has no transactional producer"},
		{"txn-coordinator of a txn queue", withQueue(TargetTxnCoordinator), ""},
		{"group-coordinator of a txn queue alone", func(s *Scenario) {
			withQueue(TargetGroupCoordinator)(s)
			s.Workload.Consumers = 0
		}, "nemesis[0].params.target: group-coordinator: the workload has no consumer group"},
		{"group-coordinator of group consumers", func(s *Scenario) {
			aim(TargetGroupCoordinator)(s)
			s.Workload.Consumers, s.Workload.Mode = 1, ModeGroup
		}, ""},
		{"a role on a kind with targets of its own", func(s *Scenario) {
			withQueue(TargetTxnCoordinator)(s)
			s.Nemesis[0].Kind = KindPowerLoss
		}, `"txn-coordinator": power-loss takes one of`},
	})
}
