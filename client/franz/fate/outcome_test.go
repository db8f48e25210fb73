package fate

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/histories"
)

func TestOutcomeOfErrors(t *testing.T) {
	tooLarge := fmt.Errorf("%w (uncompressed_bytes=%d)", kerr.MessageTooLarge, 2<<20)
	for _, c := range []struct {
		name     string
		err      error
		buffered bool
		want     histories.Type
	}{
		{"acknowledged", nil, true, histories.OK},
		{"buffer full, never buffered", kgo.ErrMaxBuffered, false, histories.Fail},
		{"context ended waiting for buffer space", context.Canceled, false, histories.Fail},
		{"record too large, checked before buffering", tooLarge, false, histories.Fail},
		{"client closed before the record was buffered", kgo.ErrClientClosed, false, histories.Fail},
		{"topic metadata never loaded", kerr.UnknownTopicOrPartition, false, histories.Fail},
		{"delivery timeout of a buffered record", kgo.ErrRecordTimeout, true, histories.Info},
		{"delivery timeout naming the last attempt's error", fmt.Errorf("%w, last err: %w", kgo.ErrRecordTimeout, kerr.NotLeaderForPartition), true, histories.Info},
		{"retries exhausted", kgo.ErrRecordRetries, true, histories.Info},
		{"client closed with the record buffered", kgo.ErrClientClosed, true, histories.Info},
		{"aborting buffered records", kgo.ErrAborting, true, histories.Info},
		{"broker: not enough replicas (validated before append)", kerr.NotEnoughReplicas, true, histories.Info},
		{"broker: record too large, after buffering", tooLarge, true, histories.Info},
		{"broker: out of order sequence", kerr.OutOfOrderSequenceNumber, true, histories.Info},
		{"an error nobody knows, buffered", errors.New("surprise"), true, histories.Info},
	} {
		if got := Outcome(c.err, c.buffered); got != c.want {
			t.Errorf("%s: Outcome(%v, buffered %v) = %s, want %s", c.name, c.err, c.buffered, got, c.want)
		}
	}
}
