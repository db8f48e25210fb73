package client_test

import (
	"fmt"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/client"
)

// A delivery report's error decides the send's completion: a message purged
// from the queue was never sent (fail); a timed-out one may be in the log
// (info); NOT_LEADER_OR_FOLLOWER is not a definite failure either.
func ExampleOutcome() {
	for _, code := range []kafka.ErrorCode{kafka.ErrPurgeQueue, kafka.ErrMsgTimedOut, kafka.ErrNotLeaderForPartition} {
		fmt.Println(code, client.Outcome(kafka.NewError(code, "", false)))
	}
	fmt.Println(client.Outcome(nil))
	// Output:
	// Local: Purged in queue fail
	// Local: Message timed out info
	// Broker: Not leader for partition info
	// ok
}
