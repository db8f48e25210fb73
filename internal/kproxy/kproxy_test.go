package kproxy

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// request is a Kafka request frame: size, api key, version, correlation
// id, client id, and a body.
func request(key int16, correlation int32, client string, body int) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(correlation))
	b = binary.BigEndian.AppendUint16(b, uint16(len(client)))
	b = append(b, client...)
	b = append(b, make([]byte, body)...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// arrival is a request as the upstream read it.
type arrival struct {
	key         int16
	correlation int32
	client      string
	at          time.Time
}

// upstream is a server that reads request frames and records them, and
// echoes a 4-byte answer to each so that round trips can be timed.
type upstream struct {
	ln net.Listener
	mu sync.Mutex
	in []arrival
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go u.serve(c)
		}
	}()
	return u
}

func (u *upstream) serve(c net.Conn) {
	defer c.Close()
	for {
		var size [4]byte
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint16(body[8:]))
		u.mu.Lock()
		u.in = append(u.in, arrival{int16(binary.BigEndian.Uint16(body)), int32(binary.BigEndian.Uint32(body[4:])),
			string(body[10 : 10+n]), time.Now()})
		u.mu.Unlock()
		c.Write(body[4:8])
	}
}

func (u *upstream) arrivals() []arrival {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]arrival(nil), u.in...)
}

func (u *upstream) await(t *testing.T, n int) []arrival {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if a := u.arrivals(); len(a) >= n {
			return a
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("upstream got %d requests in 5 s, want %d", len(u.arrivals()), n)
	return nil
}

func proxied(t *testing.T) (*Set, *upstream, string) {
	t.Helper()
	u := newUpstream(t)
	s := New()
	t.Cleanup(func() { s.Close() })
	addr, err := s.Add("b1", "127.0.0.1:0", u.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return s, u, addr
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c
}

// roundTrip sends one request and reads its answer.
func roundTrip(t *testing.T, c net.Conn, correlation int32) time.Duration {
	t.Helper()
	began := time.Now()
	if _, err := c.Write(request(APIApiVersions, correlation, "probe", 0)); err != nil {
		t.Fatal(err)
	}
	var ans [4]byte
	if _, err := io.ReadFull(c, ans[:]); err != nil {
		t.Fatal(err)
	}
	return time.Since(began)
}

func TestLatencyDelaysAndHealRemovesIt(t *testing.T) {
	s, _, addr := proxied(t)
	c := dial(t, addr)
	if rt := roundTrip(t, c, 1); rt > 50*time.Millisecond {
		t.Fatalf("round trip without toxics took %v", rt)
	}
	if err := s.Apply("b1", "slow", Toxic{Kind: Latency, Stream: "upstream", Latency: 150 * time.Millisecond, Jitter: 10 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if active, _ := s.Active("b1"); len(active) != 1 || active[0] != "slow" {
		t.Fatalf("active toxics %v, want [slow]", active)
	}
	if rt := roundTrip(t, c, 2); rt < 140*time.Millisecond {
		t.Fatalf("round trip with 150±10 ms latency took %v", rt)
	}
	if err := s.Heal(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Heal(context.Background()); err != nil {
		t.Fatalf("a second heal: %v", err)
	}
	if rt := roundTrip(t, c, 3); rt > 50*time.Millisecond {
		t.Fatalf("round trip after heal took %v: the latency stayed", rt)
	}
}

// A hold delays the victim's produce and the request behind it on the
// same connection, in order, while another client's produce passes; the
// request is split over writes, as a socket may deliver it.
func TestHoldDelaysOnlyMatchingRequests(t *testing.T) {
	s, u, addr := proxied(t)
	// long beside a loaded machine's scheduling delays (400 ms seen), so "at once"
	// and "held" stay apart
	hold := time.Second
	if err := s.Apply("b1", "h", Toxic{Kind: HoldType, Stream: "upstream",
		Hold: Hold{APIKeys: []int16{APIProduce}, ClientID: "victim", For: hold}}); err != nil {
		t.Fatal(err)
	}
	victim, other := dial(t, addr), dial(t, addr)
	sent := time.Now()
	frame := append(request(APIProduce, 1, "victim-p1", 100), request(APIMetadata, 2, "victim-p1", 10)...)
	for _, part := range [][]byte{frame[:3], frame[3:17], frame[17:]} {
		victim.Write(part)
		time.Sleep(5 * time.Millisecond)
	}
	other.Write(request(APIProduce, 3, "other", 100))
	got := u.await(t, 3)
	if got[0].correlation != 3 || got[0].at.Sub(sent) > hold/2 {
		t.Errorf("first arrival %+v after %v: want the other client's produce, at once", got[0], got[0].at.Sub(sent))
	}
	if got[1].correlation != 1 || got[2].correlation != 2 || got[1].client != "victim-p1" {
		t.Errorf("arrivals %+v: want the victim's produce, then its metadata, in order", got)
	}
	if d := got[1].at.Sub(sent); d < hold-20*time.Millisecond {
		t.Errorf("the held produce arrived after %v, want >= %v", d, hold)
	}
	if n, err := s.HeldBy("b1", "h"); n != 1 || err != nil {
		t.Errorf("HeldBy = %d, %v; want 1", n, err)
	}
}

// The hold is long beside the time a loaded machine takes to pass a
// request on: the second EndTxn must arrive within half of it, the first
// not before it ends.
func TestHoldCountBoundsTheHeld(t *testing.T) {
	const hold = 2 * time.Second
	s, u, addr := proxied(t)
	if err := s.Apply("b1", "h", Toxic{Kind: HoldType, Stream: "upstream",
		Hold: Hold{APIKeys: []int16{APIEndTxn}, For: hold, Count: 1}}); err != nil {
		t.Fatal(err)
	}
	a, b := dial(t, addr), dial(t, addr)
	sent := time.Now()
	a.Write(request(APIEndTxn, 1, "x", 0))
	time.Sleep(20 * time.Millisecond)
	b.Write(request(APIEndTxn, 2, "x", 0))
	got := u.await(t, 2)
	if got[0].correlation != 2 || got[0].at.Sub(sent) > hold/2 {
		t.Errorf("first arrival %+v after %v: the second EndTxn should pass at once (count 1)", got[0], got[0].at.Sub(sent))
	}
	if got[1].correlation != 1 || got[1].at.Sub(sent) < hold-50*time.Millisecond {
		t.Errorf("second arrival %+v after %v: want the held EndTxn, after its %v hold", got[1], got[1].at.Sub(sent), hold)
	}
	if n, _ := s.HeldBy("b1", "h"); n != 1 {
		t.Errorf("held %d, want 1", n)
	}
}

// Removing a hold while it holds lets the request through at once, whole.
func TestHealReleasesAHeldRequest(t *testing.T) {
	s, u, addr := proxied(t)
	if err := s.Apply("b1", "h", Toxic{Kind: HoldType, Stream: "upstream",
		Hold: Hold{APIKeys: []int16{APIProduce}, For: time.Minute}}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, addr)
	c.Write(request(APIProduce, 7, "x", 50))
	time.Sleep(100 * time.Millisecond)
	healed := time.Now()
	if err := s.Heal(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := u.await(t, 1)
	if got[0].correlation != 7 || got[0].at.Sub(healed) > time.Second {
		t.Errorf("arrival %+v %v after the heal: want the held produce, whole, at once", got[0], got[0].at.Sub(healed))
	}
	if rt := roundTrip(t, c, 8); rt > 100*time.Millisecond {
		t.Errorf("the connection's next request took %v: its framing was lost", rt)
	}
}

func TestToxicValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		toxic Toxic
		want  string
	}{
		{Toxic{Kind: Latency, Stream: "sideways", Latency: time.Second}, "stream"},
		{Toxic{Kind: Latency, Stream: "upstream", Latency: 10, Jitter: 20}, "latency/jitter"},
		{Toxic{Kind: Bandwidth, Stream: "upstream"}, "rate"},
		{Toxic{Kind: Slicer, Stream: "upstream", AverageSize: 10, SizeVariation: 10}, "size"},
		{Toxic{Kind: HoldType, Stream: "downstream", Hold: Hold{APIKeys: []int16{0}, For: 1}}, "requests flow upstream"},
		{Toxic{Kind: HoldType, Stream: "upstream", Hold: Hold{For: time.Second}}, "api keys"},
		{Toxic{Kind: "netem", Stream: "upstream"}, `kind "netem"`},
	} {
		if err := tc.toxic.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %q", tc.toxic, err, tc.want)
		}
	}
	s, _, _ := proxied(t)
	if err := s.Apply("b9", "x", Toxic{Kind: Timeout, Stream: "upstream"}); err == nil || !strings.Contains(err.Error(), `no proxy "b9"`) {
		t.Errorf("a toxic on a missing proxy: %v", err)
	}
}

func TestParseRequest(t *testing.T) {
	full := request(APIEndTxn, 5, "txn-1", 3)
	if total, key, client, ok := parseRequest(full, true); total != len(full) || key != APIEndTxn || client != "txn-1" || !ok {
		t.Errorf("parseRequest = %d %d %q %v", total, key, client, ok)
	}
	if _, _, _, ok := parseRequest(full[:15], true); ok {
		t.Error("a header cut inside the client id was read as whole")
	}
	if total, _, _, ok := parseRequest(full[:4], false); total != len(full) || !ok {
		t.Errorf("the size alone: %d %v", total, ok)
	}
	if total, _, _, _ := parseRequest([]byte{0, 0, 0, 2, 1, 1}, true); total != -1 {
		t.Errorf("a size no request has: total %d, want -1", total)
	}
}
