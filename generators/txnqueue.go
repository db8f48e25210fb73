package generators

// RoleTxnQueue is the role of a txn-queue worker (Workload.TxnQueues).
const RoleTxnQueue = "txn-queue"

// validateTxnQueues checks what transactional queues need: a producer
// transactional.id, from which each queue's own is derived; and a
// txn-size, the most sends and polls one of their transactions mixes; and
// that an intra-transaction delay has queues to pause.
func (w Workload) validateTxnQueues(s *Scenario) []error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, bad("workload."+field, format, args...))
	}
	switch {
	case w.IntraTxnDelay < 0:
		add("intra-txn-delay", "%s, want >= 0", w.IntraTxnDelay)
	case w.IntraTxnDelay > 0 && w.TxnQueues == 0:
		add("intra-txn-delay", "%s without txn queues: only their transactions pause between steps", w.IntraTxnDelay)
	}
	switch {
	case w.TxnQueues < 0:
		add("txn-queues", "%d, want >= 0", w.TxnQueues)
		return errs
	case w.TxnQueues == 0:
		return errs
	}
	if !s.Producer.Transactional() {
		add("txn-queues", "txn queues need a producer transactional.id (queue i's is <id>-queue-i)")
	}
	if w.TxnSize < 1 {
		add("txn-size", "%d, want >= 1 with txn queues (the most sends and polls of one transaction)", w.TxnSize)
	}
	return errs
}
