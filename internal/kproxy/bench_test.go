package kproxy

import (
	"io"
	"net"
	"testing"
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
