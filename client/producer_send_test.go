package client

import (
	"context"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Send sends value to key through SendAsync, as the workers do, and waits
// for its outcome: the tests' synchronous send. Every recorded send
// completes (at the latest when the producer crashes or closes), so the
// wait ends.
func (p *Producer) Send(ctx context.Context, key histories.Key, value int64) (histories.Type, error) {
	res := make(chan histories.Type, 1)
	if err := p.SendAsync(ctx, key, value, func(t histories.Type) { res <- t }); err != nil {
		return "", err
	}
	return <-res, nil
}
