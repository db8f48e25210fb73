package workers

import "github.com/kafkachaos/kafkachaos/client"

// Stall asks the slot's consumer to stop between its next two ops until
// the returned stall is resumed (client.Consumer.Stall); its poll loop
// then goes on with the same consumer. ErrNothingToCrash when the slot
// has no running consumer.
func (s *ConsumerSlot) Stall() (*client.Stall, error) {
	c := s.Current()
	if c == nil || c.Ended() {
		return nil, ErrNothingToCrash
	}
	return c.Stall()
}
