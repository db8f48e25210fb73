package kproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Toxic kinds: Toxiproxy's stream toxics, and hold (this package's).
const (
	Latency   = "latency"    // Latency ± Jitter on every chunk
	Timeout   = "timeout"    // nothing passes; the connection closes after Timeout (0: never)
	ResetPeer = "reset_peer" // the connection is reset (RST) Timeout after data arrives
	SlowClose = "slow_close" // a close is delayed by Delay
	Bandwidth = "bandwidth"  // at most RateKBps
	Slicer    = "slicer"     // data cut into slices of AverageSize ± SizeVariation bytes, Delay apart
	HoldType  = "hold"       // chosen Kafka requests held for Hold (see Hold)
)

// Toxic is one toxic on one stream of a proxy. Stream is "upstream" (client
// to broker) or "downstream" (broker to client); hold acts on requests, so
// only upstream.
type Toxic struct {
	Kind   string
	Stream string
	// Latency and Jitter (latency); Timeout (timeout, reset_peer); Delay
	// (slow_close, slicer).
	Latency, Jitter, Timeout, Delay time.Duration
	RateKBps                        int64 // bandwidth
	AverageSize, SizeVariation      int   // slicer, bytes
	Hold                            Hold  // hold
}

// Validate says what is wrong with t, naming the field.
func (t Toxic) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("kproxy: %s toxic: %s: %s", t.Kind, field, fmt.Sprintf(format, args...))
	}
	if t.Stream != "upstream" && t.Stream != "downstream" {
		return bad("stream", "%q, want upstream or downstream", t.Stream)
	}
	switch t.Kind {
	case Latency:
		if t.Latency <= 0 || t.Jitter < 0 || t.Jitter > t.Latency {
			return bad("latency/jitter", "%v ± %v: want a positive latency and 0 <= jitter <= latency", t.Latency, t.Jitter)
		}
	case Timeout, ResetPeer:
		if t.Timeout < 0 {
			return bad("timeout", "%v: must not be negative", t.Timeout)
		}
	case SlowClose:
		if t.Delay <= 0 {
			return bad("delay", "%v: want a positive delay", t.Delay)
		}
	case Bandwidth:
		if t.RateKBps <= 0 {
			return bad("rate", "%d KB/s: want a positive rate", t.RateKBps)
		}
	case Slicer:
		if t.AverageSize <= 0 || t.SizeVariation < 0 || t.SizeVariation >= t.AverageSize {
			return bad("size", "%d ± %d bytes: want a positive average above the variation", t.AverageSize, t.SizeVariation)
		}
	case HoldType:
		if t.Stream != "upstream" {
			return bad("stream", "%s: requests flow upstream", t.Stream)
		}
		return t.Hold.validate()
	default:
		return fmt.Errorf("kproxy: toxic kind %q: want latency, timeout, reset_peer, slow_close, bandwidth, slicer or hold", t.Kind)
	}
	return nil
}

// attributes is t's attributes as Toxiproxy reads them (milliseconds,
// microseconds for the slicer's delay).
func (t Toxic) attributes() any {
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	switch t.Kind {
	case Latency:
		return map[string]int64{"latency": ms(t.Latency), "jitter": ms(t.Jitter)}
	case Timeout, ResetPeer:
		return map[string]int64{"timeout": ms(t.Timeout)}
	case SlowClose:
		return map[string]int64{"delay": ms(t.Delay)}
	case Bandwidth:
		return map[string]int64{"rate": t.RateKBps}
	case Slicer:
		return map[string]int64{"average_size": int64(t.AverageSize), "size_variation": int64(t.SizeVariation),
			"delay": t.Delay.Microseconds()}
	}
	return t.Hold.attributes()
}

// Apply adds t to proxy under name. A name already there is an error.
func (s *Set) Apply(proxy, name string, t Toxic) error {
	if err := t.Validate(); err != nil {
		return err
	}
	p, err := s.proxy(proxy)
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"name": name, "type": t.Kind, "stream": t.Stream, "toxicity": 1.0,
		"attributes": t.attributes()})
	if err != nil {
		return fmt.Errorf("kproxy: %w", err)
	}
	if _, err := p.Toxics.AddToxicJson(bytes.NewReader(body)); err != nil {
		return fmt.Errorf("kproxy: adding %s toxic %s to %s: %w", t.Kind, name, proxy, err)
	}
	return nil
}

// HeldBy is how many requests the hold toxic name on proxy has held so
// far: a hold counts as fired only once it held one.
func (s *Set) HeldBy(proxy, name string) (int64, error) {
	p, err := s.proxy(proxy)
	if err != nil {
		return 0, err
	}
	w := p.Toxics.GetToxic(name)
	if w == nil {
		return 0, fmt.Errorf("kproxy: no toxic %s on %s", name, proxy)
	}
	h, ok := w.Toxic.(*holdToxic)
	if !ok {
		return 0, fmt.Errorf("kproxy: toxic %s on %s is a %s, not a hold", name, proxy, w.Type)
	}
	return h.held.Load(), nil
}
