package workers

import (
	"errors"
	"fmt"

	"github.com/kafkachaos/kafkachaos/client"
)

// Stall asks the slot's consumer to stop between its next two ops until
// the returned stall is resumed (client.Consumer.Stall); its poll loop
// then goes on with the same consumer. ErrNothingToCrash when the slot
// has no running consumer; ErrNoStall when its consumer is not
// librdkafka's, the only one with the hook.
func (s *ConsumerSlot) Stall() (*client.Stall, error) {
	c := s.Current()
	if c == nil || c.Ended() {
		return nil, ErrNothingToCrash
	}
	lc, ok := c.(*client.Consumer)
	if !ok {
		return nil, fmt.Errorf("%w: process %d is a %T", ErrNoStall, c.Process(), c)
	}
	return lc.Stall()
}

// ErrNoStall is a consumer without the stall hook (client.Stall: held
// between two ops, woken, reported): librdkafka's consumer has it, the
// Java consumer not yet.
var ErrNoStall = errors.New("stall-consumer: the consumer has no stall hook (librdkafka's only)")
