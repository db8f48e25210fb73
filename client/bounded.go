package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/histories"
)

// ErrClientHang is matched (errors.Is) by every *HangError.
var ErrClientHang = errors.New("client: a call outlived its timeout")

// HangError is a client call that was still blocked a grace after its own
// timeout had passed. librdkafka has calls that ignore their timeout (its
// issues 5456 and 5511: SendOffsetsToTransaction after the group
// coordinator went away), and the harness must end on time: it stops
// waiting, leaves the call's goroutine behind and abandons the handle, since
// nothing can interrupt a goroutine inside cgo and any later call on that
// handle, Close included, could block the same way. A hang is a finding
// about the client, recorded as a client-hang op.
type HangError struct {
	Call    string        // the method, e.g. "SendOffsetsToTransaction"
	Timeout time.Duration // what the call was given
	Grace   time.Duration // how long past Timeout it was waited for
	Blocked time.Duration // how long it had blocked when it was given up
}

func (e *HangError) Error() string {
	return fmt.Sprintf("client hang: %s still blocked after %v (timeout %v, grace %v); its client is abandoned",
		e.Call, e.Blocked.Round(time.Millisecond), e.Timeout.Round(time.Millisecond), e.Grace)
}

// Is makes every HangError match ErrClientHang.
func (e *HangError) Is(target error) bool { return target == ErrClientHang }

// Value marshals e as a client-hang op's value, the shape checkers and the
// report read a liveness finding from; strings and integers cannot fail to
// marshal.
func (e *HangError) Value() json.RawMessage {
	b, _ := json.Marshal(histories.ClientHang{Call: e.Call, TimeoutMs: e.Timeout.Milliseconds(),
		GraceMs: e.Grace.Milliseconds(), BlockedMs: e.Blocked.Milliseconds()})
	return b
}

// HangGrace is how long past its own timeout a call may block before it
// counts as hung: librdkafka checks its timeouts on its own threads' ticks,
// and two shared cores under -race delay them, so the grace is generous.
func HangGrace(timeout time.Duration) time.Duration { return max(timeout/2, 2*time.Second) }

// Bounded runs call, which was given timeout, and waits for it up to
// timeout plus HangGrace(timeout). A call still blocked then is left
// running and a *HangError is returned: the caller must never use the
// call's handle again.
func Bounded(call string, timeout time.Duration, fn func() error) error {
	_, err := boundedValue(call, timeout, func() (struct{}, error) { return struct{}{}, fn() })
	return err
}

// boundedValue is Bounded for a call that returns a value.
func boundedValue[T any](call string, timeout time.Duration, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	timeout = max(timeout, 0)
	grace := HangGrace(timeout)
	// Buffered: a call that returns after it was given up must not block
	// its goroutine forever.
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	timer := time.NewTimer(timeout + grace)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-timer.C:
		var zero T
		return zero, &HangError{Call: call, Timeout: timeout, Grace: grace, Blocked: time.Since(start)}
	}
}
