package client

import (
	"errors"
	"testing"
	"time"
)

// TestBoundedGivesUpOnAHungCall: a call that never
// returns is given up a grace after its timeout, as a HangError that names
// it and says how long it blocked.
func TestBoundedGivesUpOnAHungCall(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	const timeout = 100 * time.Millisecond
	start := time.Now()
	err := Bounded("SendOffsetsToTransaction", timeout, func() error {
		// Let go after 10s anyway: without a watchdog the test fails,
		// it does not hang.
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		return nil
	})
	took := time.Since(start)
	var hang *HangError
	if !errors.As(err, &hang) || !errors.Is(err, ErrClientHang) {
		t.Fatalf("err = %v, want a *HangError matching ErrClientHang", err)
	}
	grace := HangGrace(timeout)
	if hang.Call != "SendOffsetsToTransaction" || hang.Timeout != timeout || hang.Grace != grace ||
		hang.Blocked < timeout+grace || hang.Blocked > took {
		t.Fatalf("hang %+v after %v: want the call, its timeout, grace %v and blocked >= both", hang, took, grace)
	}
	if took > timeout+grace+time.Second {
		t.Fatalf("gave up after %v, want about %v", took, timeout+grace)
	}
}

// TestBoundedPassesResultsThrough: a call that returns in time is not a
// hang, whatever it returns.
func TestBoundedPassesResultsThrough(t *testing.T) {
	boom := errors.New("boom")
	if err := Bounded("x", time.Second, func() error { return boom }); err != boom {
		t.Fatalf("err = %v, want the call's own", err)
	}
	v, err := boundedValue("y", time.Second, func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("got %d, %v; want 7, nil", v, err)
	}
}
