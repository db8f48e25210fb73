// Package workers runs a scenario's clients for one run: producers,
// consumers, copiers and txn queues, each in a slot that holds its current
// client. A client that crashed (a fault asked it to, or it hung) is
// replaced in its slot by a new one with new process ids, as a supervisor
// restarts a crashed service; the history sees a crashed process never
// come back.
//
// It turns the scenario's workload (counts, rate and mix, lanes, batch
// sizes, copier mode) and client configuration into client options, paces
// the ops, draws the txn queues' transactions, and ends every worker
// within a bound once the run is over, fencing what a copier or a txn queue
// may have left open. Every role's workers are of the client the scenario
// names for it (ProducerClient: client.Producer over librdkafka, or
// java.Producer, the Java client in a JVM of its own; ConsumerClient:
// client.Consumer or java.Consumer; CopierClient: client.Copier or
// java.Copier, transactional only; TxnQueueClient: client.TxnQueue or
// java.TxnQueue). Only client.Consumer has the stall hook (Stall refuses
// the others with ErrNoStall).
//
// It must not know the cluster provider (it is given a bootstrap address and
// at most a client.MemberFencer), the nemesis schedule (faults reach a
// worker through its slot's Crash and Churn), nor checkers or models: it
// records ops through client and never judges them.
package workers
