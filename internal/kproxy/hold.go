package kproxy

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

// Kafka API keys a hold is usually aimed at.
const (
	APIProduce         int16 = 0
	APIOffsetCommit    int16 = 8
	APIAddPartitions   int16 = 24 // AddPartitionsToTxn
	APIAddOffsetsToTxn int16 = 25
	APIEndTxn          int16 = 26
	APITxnOffsetCommit int16 = 28
	APIApiVersions     int16 = 18
	APIInitProducerID  int16 = 22
	APIFindCoordinator int16 = 10
	APIMetadata        int16 = 3
	APIHeartbeat       int16 = 12
)

// Hold holds the Kafka requests whose API key is in APIKeys, sent by
// clients whose client.id starts with ClientID ("" for any), each for For
// after it arrived, then lets it through; Count bounds how many it holds in
// all (0: every one). Requests behind a held one on the same connection
// wait with it (Kafka answers a connection's requests in order); requests
// on other connections pass.
type Hold struct {
	APIKeys  []int16
	ClientID string
	For      time.Duration
	Count    int64
}

func (h Hold) validate() error {
	switch {
	case len(h.APIKeys) == 0:
		return fmt.Errorf("kproxy: hold toxic: api keys: want at least one")
	case h.For <= 0:
		return fmt.Errorf("kproxy: hold toxic: for: %v, want a positive duration", h.For)
	case h.Count < 0:
		return fmt.Errorf("kproxy: hold toxic: count: %d, must not be negative", h.Count)
	}
	return nil
}

func (h Hold) attributes() any {
	return holdToxic{APIKeys: h.APIKeys, ClientID: h.ClientID, HoldMs: h.For.Milliseconds(), Count: h.Count}
}

// holdToxic is Hold as a Toxiproxy toxic. One value serves every
// connection of its proxy; held counts the requests it held over all.
type holdToxic struct {
	APIKeys  []int16 `json:"api_keys"`
	ClientID string  `json:"client_id"`
	HoldMs   int64   `json:"hold_ms"`
	Count    int64   `json:"count"`

	held atomic.Int64
}

// holdState is one connection's place in its request stream: hdr holds
// the bytes of a request not yet decided on, left the bytes of the
// current request still to pass after the decision. blind is set when the
// framing was lost (an interrupt with under four bytes of a request
// pending, or a size no request has): from then on everything passes.
type holdState struct {
	hdr   []byte
	left  int
	blind bool
}

// NewState makes holdToxic a Toxiproxy StatefulToxic: the framing of a
// connection survives the toxic's restarts.
func (t *holdToxic) NewState() any { return new(holdState) }

// Pipe passes the stream through, holding matching requests.
func (t *holdToxic) Pipe(stub *toxics.ToxicStub) {
	st := stub.State.(*holdState)
	for {
		select {
		case <-stub.Interrupt:
			t.step(stub, st, nil, time.Time{}, false)
			return
		case c := <-stub.Input:
			if c == nil {
				t.step(stub, st, nil, time.Time{}, false)
				stub.Close()
				return
			}
			if !t.step(stub, st, c.Data, c.Timestamp, true) {
				return
			}
		}
	}
}

// step passes data after what st holds, deciding on each request whose
// header is complete. With hold false (an interrupt, the stream's end) it
// decides nothing and passes everything, keeping the framing where it
// can. It returns false when an interrupt cut a hold short (everything
// pending was passed; the toxic must stop).
func (t *holdToxic) step(stub *toxics.ToxicStub, st *holdState, data []byte, at time.Time, hold bool) bool {
	out := func(b []byte) {
		if len(b) > 0 {
			stub.Output <- &stream.StreamChunk{Data: slices.Clone(b), Timestamp: at}
		}
	}
	for len(data) > 0 && (st.blind || st.left > 0) {
		n := len(data)
		if !st.blind {
			n = min(st.left, n)
			st.left -= n
		}
		out(data[:n])
		data = data[n:]
	}
	st.hdr = append(st.hdr, data...)
	for len(st.hdr) > 0 && !st.blind {
		total, key, client, ok := parseRequest(st.hdr, hold)
		switch {
		case total < 0:
			st.blind = true
			out(st.hdr)
			st.hdr = nil
			return true
		case !ok && hold:
			return true // the header is not complete yet
		case !ok:
			st.blind = true // under four bytes: where this request ends is unknown
			out(st.hdr)
			st.hdr = nil
			return true
		}
		interrupted := hold && t.matches(key, client) && t.take() && !wait(stub, at.Add(time.Duration(t.HoldMs)*time.Millisecond))
		n := min(total, len(st.hdr))
		out(st.hdr[:n])
		st.left, st.hdr = total-n, slices.Clone(st.hdr[n:])
		if interrupted {
			t.step(stub, st, nil, at, false)
			return false
		}
	}
	return true
}

// parseRequest reads a request's size and, when full, its API key and
// client id from the start of b. total is the request's length with its
// size field, -1 when the size is no request's; ok is false while b is
// too short for what was asked.
func parseRequest(b []byte, full bool) (total int, key int16, client string, ok bool) {
	if len(b) < 4 {
		return 0, 0, "", false
	}
	size := int32(binary.BigEndian.Uint32(b))
	if size < 10 { // api key, version, correlation id, client id length
		return -1, 0, "", true
	}
	total = 4 + int(size)
	if !full {
		return total, 0, "", true
	}
	if len(b) < 14 {
		return total, 0, "", false
	}
	key = int16(binary.BigEndian.Uint16(b[4:]))
	n := int(int16(binary.BigEndian.Uint16(b[12:])))
	if n <= 0 {
		return total, key, "", true
	}
	if len(b) < 14+n {
		return total, key, "", false
	}
	return total, key, string(b[14 : 14+n]), true
}

func (t *holdToxic) matches(key int16, client string) bool {
	return slices.Contains(t.APIKeys, key) && strings.HasPrefix(client, t.ClientID)
}

// take counts one more held request, unless Count are held already.
func (t *holdToxic) take() bool {
	for {
		cur := t.held.Load()
		if t.Count > 0 && cur >= t.Count {
			return false
		}
		if t.held.CompareAndSwap(cur, cur+1) {
			return true
		}
	}
}

// wait waits until deadline; false when the toxic was interrupted first.
func wait(stub *toxics.ToxicStub, deadline time.Time) bool {
	d := time.Until(deadline)
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-stub.Interrupt:
		return false
	}
}
