package kproxy

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"slices"
	"time"
)

// ProbeTimeout bounds one probe's round trip: a proxy answers within
// milliseconds plus its toxics' delays, which faults keep to seconds.
const ProbeTimeout = 5 * time.Second

// Addr is the address proxy name listens on.
func (s *Set) Addr(name string) (string, error) {
	p, err := s.proxy(name)
	if err != nil {
		return "", err
	}
	p.Lock()
	defer p.Unlock()
	return p.Listen, nil
}

// ApplyVerified adds t to proxy under name, lists it back, and for a
// latency toxic times a probe through the proxy: the toxic counts as in
// effect only once the probe is at least Latency - Jitter late.
func (s *Set) ApplyVerified(ctx context.Context, proxy, name string, t Toxic) error {
	if err := s.Apply(proxy, name, t); err != nil {
		return err
	}
	active, err := s.Active(proxy)
	if err != nil || !slices.Contains(active, name) {
		return fmt.Errorf("kproxy: toxic %s not listed on %s after adding it (have %v, %v)", name, proxy, active, err)
	}
	if t.Kind != Latency {
		return nil
	}
	rt, err := s.ProbeVia(ctx, proxy)
	if err != nil {
		return fmt.Errorf("kproxy: probing %s: %w", proxy, err)
	}
	if least := t.Latency - t.Jitter; rt < least {
		return fmt.Errorf("kproxy: a probe through %s took %v, under the toxic's %v: the latency is not in effect", proxy, rt, least)
	}
	return nil
}

// VerifiedToxic says what ApplyVerified checks, for a fault's op.
const VerifiedToxic = "the toxic is listed on the proxy; a latency toxic also delays a probe's round trip through it by at least latency - jitter"

// VerifiedHeal says what Heal checks.
const VerifiedHeal = "no toxic is listed on any proxy"

// ProbeVia times one ApiVersions round trip through proxy name.
func (s *Set) ProbeVia(ctx context.Context, name string) (time.Duration, error) {
	addr, err := s.Addr(name)
	if err != nil {
		return 0, err
	}
	return Probe(ctx, addr)
}

// Probe times one ApiVersions round trip to the Kafka broker at addr
// (directly or through a proxy), within ProbeTimeout.
func Probe(ctx context.Context, addr string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	began := time.Now()
	if _, err := conn.Write(apiVersionsRequest()); err != nil {
		return 0, err
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return 0, err
	}
	if _, err := io.CopyN(io.Discard, conn, int64(binary.BigEndian.Uint32(size[:]))); err != nil {
		return 0, err
	}
	return time.Since(began), nil
}

// apiVersionsRequest is ApiVersions v0 from client "kafkachaos-probe":
// every Kafka version answers it, before any other request.
func apiVersionsRequest() []byte {
	const client = "kafkachaos-probe"
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(APIApiVersions))
	b = binary.BigEndian.AppendUint16(b, 0)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint16(b, uint16(len(client)))
	b = append(b, client...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}
