package kproxy

import (
	"context"
	"crypto/rand"
	"io"
	"net"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The benchmarks name their sides via=direct and via=proxied, so that
// `benchstat -col /via` prints the proxied/direct ratio of each, measured
// in the same run (the bar: proxied >= 0.9 of direct when no toxic is on).
// The Kafka benchmarks also have via=logged: proxied with the request log
// open, whose ratio to via=proxied is the log's cost.

// BenchmarkThroughput writes 64 KiB blocks to a sink directly and through
// a proxy without toxics: the proxy's cost on bulk bytes, where it copies
// every chunk twice and hands it across three goroutines per direction.
func BenchmarkThroughput(b *testing.B) {
	ln := listen(b, func(c net.Conn) { io.Copy(io.Discard, c) })
	block := make([]byte, 64<<10)
	for _, via := range []string{"direct", "proxied"} {
		b.Run("via="+via, func(b *testing.B) {
			c := connect(b, route(b, via, ln.Addr().String()))
			b.SetBytes(int64(len(block)))
			for b.Loop() {
				if _, err := c.Write(block); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRoundTrip sends 1 KiB and waits for it to come back, directly
// and through a proxy without toxics: the latency the proxy adds to one
// request and its answer, the shape of a client waiting on each produce.
func BenchmarkRoundTrip(b *testing.B) {
	ln := listen(b, func(c net.Conn) { io.Copy(c, c) })
	msg := make([]byte, 1024)
	for _, via := range []string{"direct", "proxied"} {
		b.Run("via="+via, func(b *testing.B) {
			c := connect(b, route(b, via, ln.Addr().String()))
			for b.Loop() {
				if _, err := c.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKafkaProduce produces batches of 100 incompressible 1 KiB
// records to an in-process Kafka (kfake, one broker) with franz-go,
// directly and through a proxy without toxics (the client's dialer sends
// the broker's address to the proxy, as an advertised listener would).
// Each side gets a broker of its own: kfake keeps every record in memory,
// so a side sharing the broker with the one before it would pay for the
// other's log.
func BenchmarkKafkaProduce(b *testing.B) {
	for _, via := range []string{"direct", "proxied", "logged"} {
		b.Run("via="+via, func(b *testing.B) {
			cl := kafkaClient(b, via)
			value := make([]byte, 1024)
			rand.Read(value)
			b.SetBytes(int64(len(value)) * 100)
			for b.Loop() {
				var recs []*kgo.Record
				for range 100 {
					recs = append(recs, &kgo.Record{Value: value})
				}
				if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKafkaTransaction commits transactions of one small record, the
// request log's worst case: every op is a Produce and an EndTxn (kfake
// speaks transactions v2), each decoded and written, and little else.
func BenchmarkKafkaTransaction(b *testing.B) {
	for _, via := range []string{"direct", "proxied", "logged"} {
		b.Run("via="+via, func(b *testing.B) {
			cl := kafkaClient(b, via, kgo.TransactionalID("bench"))
			ctx := context.Background()
			for b.Loop() {
				if err := cl.BeginTransaction(); err != nil {
					b.Fatal(err)
				}
				if err := cl.ProduceSync(ctx, &kgo.Record{Value: make([]byte, 100)}).FirstErr(); err != nil {
					b.Fatal(err)
				}
				if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// kafkaClient is a franz-go client of a new in-process Kafka (kfake, one
// broker, topic t) reached via route, closed at b's end.
func kafkaClient(b *testing.B, via string, opts ...kgo.Opt) *kgo.Client {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	broker := c.ListenAddrs()[0]
	addr := route(b, via, broker)
	var d net.Dialer
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(broker), kgo.DefaultProduceTopic("t"),
		kgo.Dialer(func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		})}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return cl
}

// route is where a client reaches upstream via: upstream itself, or a new
// proxy to it without toxics, which b's cleanup closes; logged, the proxy
// logs its requests to a file in b's temporary directory.
func route(b *testing.B, via, upstream string) string {
	if via == "direct" {
		return upstream
	}
	s := New()
	b.Cleanup(func() {
		if err := s.Close(); err != nil {
			b.Error(err)
		}
	})
	if via == "logged" {
		if _, err := s.LogRequests(filepath.Join(b.TempDir(), "requests.jsonl.gz")); err != nil {
			b.Fatal(err)
		}
	}
	addr, err := s.Add("bench", "127.0.0.1:0", upstream)
	if err != nil {
		b.Fatal(err)
	}
	return addr
}

// listen serves each connection to a local listener with serve until b
// ends.
func listen(b testing.TB, serve func(net.Conn)) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { serve(c); c.Close() }()
		}
	}()
	return ln
}

// connect is a connection to addr that b's cleanup closes.
func connect(b *testing.B, addr string) net.Conn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}
