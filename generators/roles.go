package generators

import "strconv"

// The names a run's workers take on the cluster, derived from the
// scenario so that every worker has its own and a fault can aim at the
// broker that coordinates one of them (TargetTxnCoordinator,
// TargetGroupCoordinator).

// CopierTxnID is transactional copier i's transactional.id.
func (s Scenario) CopierTxnID(i int) string {
	return s.Producer.TransactionalID + "-" + strconv.Itoa(i)
}

// QueueTxnID is txn queue i's transactional.id.
func (s Scenario) QueueTxnID(i int) string {
	return s.Producer.TransactionalID + "-queue-" + strconv.Itoa(i)
}

// CopierGroup is the copiers' consumer group, apart from the consumers'.
func (s Scenario) CopierGroup() string { return s.Workload.Group + "-copiers" }

// Coordinated is the transactional id and the consumer group whose
// coordinators the role targets name: the first txn queue's id, else the
// first transactional copier's; the consumers' group, else the copiers'
// (assigning copiers still commit their offsets through it). Each is ""
// when the workload has none.
func (s Scenario) Coordinated() (txnID, group string) {
	w := s.Workload
	switch {
	case w.TxnQueues > 0:
		txnID = s.QueueTxnID(0)
	case w.Copiers > 0 && w.CopyMode() == CopyTransactional:
		txnID = s.CopierTxnID(0)
	}
	switch {
	case w.Consumers > 0 && w.Mode == ModeGroup:
		group = w.Group
	case w.Copiers > 0:
		group = s.CopierGroup()
	}
	return txnID, group
}
