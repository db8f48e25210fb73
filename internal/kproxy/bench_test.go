package kproxy

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkThroughput writes 64 KiB blocks to a sink directly and through
// a proxy without toxics, same run: the proxy's cost when no fault is on
// (compare the two MB/s; the bar is proxied >= 0.9 of direct).
func BenchmarkThroughput(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	s := New()
	defer s.Close()
	proxied, err := s.Add("sink", "127.0.0.1:0", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	block := make([]byte, 64<<10)
	for _, tc := range []struct{ name, addr string }{{"direct", ln.Addr().String()}, {"proxied", proxied}} {
		b.Run(tc.name, func(b *testing.B) {
			c, err := net.Dial("tcp", tc.addr)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			b.SetBytes(int64(len(block)))
			for b.Loop() {
				if _, err := c.Write(block); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkKafkaProduce produces to an in-process Kafka (kfake, one broker)
// with franz-go, directly and through a proxy without toxics (the client's
// dialer sends the broker's address to the proxy, as an advertised
// listener would), same run: the proxy's cost on Kafka traffic.
func BenchmarkKafkaProduce(b *testing.B) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	broker := c.ListenAddrs()[0]
	s := New()
	defer s.Close()
	proxied, err := s.Add("b1", "127.0.0.1:0", broker)
	if err != nil {
		b.Fatal(err)
	}
	value := make([]byte, 1024)
	for _, tc := range []struct{ name, via string }{{"direct", broker}, {"proxied", proxied}} {
		b.Run(tc.name, func(b *testing.B) {
			var d net.Dialer
			cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.DefaultProduceTopic("t"),
				kgo.Dialer(func(ctx context.Context, network, _ string) (net.Conn, error) {
					return d.DialContext(ctx, network, tc.via)
				}))
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
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
