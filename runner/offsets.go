package runner

import (
	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/histories"
)

// unknownOffsets passes ops on to the history, turning the negative offsets
// librdkafka reports for a send it knows succeeded but not where (-1001,
// RD_KAFKA_OFFSET_INVALID: e.g. an idempotent retry the broker answered
// DUPLICATE_SEQUENCE_NUMBER) into histories.NoOffset, which is what they
// mean. Without it the history is rejected as malformed.
//
// TODO(client): client.Producer should record NoOffset itself; this wrapper
// goes once it does.
type unknownOffsets struct{ next client.Recorder }

func (u unknownOffsets) Record(op *histories.Op) *histories.Op {
	for i := range op.Mops {
		if m := &op.Mops[i]; m.F == histories.MSend && m.Offset < 0 {
			m.Offset = histories.NoOffset
		}
	}
	return u.next.Record(op)
}
