package workers

import (
	"errors"
	"strings"
	"testing"
)

// hooklessConsumer is a running consumer of a client without the stall
// hook (as the Java consumer is).
type hooklessConsumer struct{ ConsumerClient }

func (hooklessConsumer) Ended() bool    { return false }
func (hooklessConsumer) Process() int64 { return 7 }

func TestStallRefusesAConsumerWithoutTheHook(t *testing.T) {
	var s ConsumerSlot
	if _, err := s.Stall(); !errors.Is(err, ErrNothingToCrash) {
		t.Fatalf("empty slot: %v, want ErrNothingToCrash", err)
	}
	s.Put(hooklessConsumer{})
	if _, err := s.Stall(); !errors.Is(err, ErrNoStall) || !strings.Contains(err.Error(), "process 7") {
		t.Fatalf("stall of a consumer without the hook: %v, want ErrNoStall naming process 7", err)
	}
}
