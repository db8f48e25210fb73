package model

import "testing"

// The two copiers a scenario can select get the guarantee of their
// recipe. The transactional one (a transactional producer, read_committed,
// offsets in the output transaction) is exactly-once end to end. The
// at-least-once one (an idempotent producer without transactions, offsets
// committed after the sends) is at-least-once end to end: its producer hop
// writes each send once, but its consumer hop may copy a record again.
func TestCopierExpectations(t *testing.T) {
	txnP := DefaultProducer()
	txnP.TransactionalID = "copier"
	txn := expect(t, Conditions{}, txnP, durableTopic, ConsumerConfig{IsolationLevel: ReadCommitted, CommitStrategy: CommitTransactional})
	if txn.EndToEnd != ExactlyOnce {
		t.Errorf("transactional copier: expected %s, want exactly-once: %v", txn.EndToEnd, txn.Reasons())
	}
	plain := expect(t, Conditions{}, DefaultProducer(), durableTopic, afterCommit)
	if plain.Producer.Guarantee != ExactlyOnce || plain.Consumer.Guarantee != AtLeastOnce || plain.EndToEnd != AtLeastOnce {
		t.Errorf("at-least-once copier: expected producer %s, consumer %s, end to end %s; want exactly-once, at-least-once, at-least-once: %v",
			plain.Producer.Guarantee, plain.Consumer.Guarantee, plain.EndToEnd, plain.Reasons())
	}
}
