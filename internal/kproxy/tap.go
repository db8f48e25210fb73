package kproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

// tapType is the toxic that hands a connection's bytes to the request log.
// Every proxy has one per stream from its start, first in its chains, so
// that it sees each connection from its first byte, before any fault's
// toxic; Active does not list it and Heal leaves it.
const tapType = "kproxy-tap"

// tapName is the name of the tap toxic on a proxy's stream.
func tapName(stream string) string { return tapType + "-" + stream }

func isTap(name string) bool { return strings.HasPrefix(name, tapType+"-") }

// tapToxic passes every chunk on unchanged, after offering it to the
// connection's request log, if one was open when the connection began.
type tapToxic struct {
	Up  bool `json:"up"`
	tap *tap
}

// tap is one proxy's taps. Toxiproxy accepts a proxy's connections on one
// goroutine, and for each logs "Accepted client" with the client's
// address, then starts the connection's upstream link, then its downstream
// one, each asking its toxics for a new state: so the addresses and the
// upstream states queue here in order, and each downstream state takes the
// connection its upstream state began.
type tap struct {
	set    *Set
	broker string

	mu      sync.Mutex
	clients []string
	conns   []*conn
}

// tapState is one stream of one connection.
type tapState struct {
	c    *conn
	up   bool
	lost bool // a chunk was dropped: the log has no framing for this stream any more
	told bool // the log has been told so
}

// NewState makes tapToxic a Toxiproxy StatefulToxic.
func (t *tapToxic) NewState() any {
	if t.Up {
		return &tapState{c: t.tap.begin(), up: true}
	}
	return &tapState{c: t.tap.paired()}
}

// Pipe passes the stream through, teeing it to the log.
func (t *tapToxic) Pipe(stub *toxics.ToxicStub) {
	st := stub.State.(*tapState)
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			if st.c.log != nil {
				st.c.log.tee(st, c)
			}
			stub.Output <- c
		}
	}
}

// begin is a new connection, with the client address accepted last.
func (p *tap) begin() *conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := &conn{id: p.set.conns.Add(1), broker: p.broker, log: p.set.log.Load()}
	if len(p.clients) > 0 {
		c.client, p.clients = p.clients[0], p.clients[1:]
	}
	p.conns = append(p.conns, c)
	return c
}

// paired is the connection whose upstream began last without its
// downstream.
func (p *tap) paired() *conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.conns) == 0 {
		return &conn{id: p.set.conns.Add(1), broker: p.broker} // not logged: its requests are unknown
	}
	c := p.conns[0]
	p.conns = p.conns[1:]
	return c
}

// Write reads the proxy's log lines for the accepted clients' addresses;
// a client whose upstream could not be dialled has no links, so its
// address is taken back.
func (p *tap) Write(line []byte) (int, error) {
	if !bytes.Contains(line, []byte(`"client"`)) {
		return len(line), nil
	}
	var ev struct {
		Client  string `json:"client"`
		Message string `json:"message"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return len(line), nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Message {
	case "Accepted client":
		p.clients = append(p.clients, ev.Client)
	case "Unable to open connection to upstream":
		if n := len(p.clients); n > 0 && p.clients[n-1] == ev.Client {
			p.clients = p.clients[:n-1]
		}
	}
	return len(line), nil
}

// addTaps puts the taps on p, not yet started, named broker in the log.
func (s *Set) addTaps(p *toxiproxy.Proxy, broker string) error {
	tp := &tap{set: s, broker: broker}
	logger := zerolog.New(tp).Level(zerolog.InfoLevel)
	p.Logger = &logger
	for _, dir := range []string{"upstream", "downstream"} {
		body, err := json.Marshal(map[string]any{"name": tapName(dir), "type": tapType, "stream": dir, "toxicity": 1.0,
			"attributes": map[string]bool{"up": dir == "upstream"}})
		if err != nil {
			return fmt.Errorf("kproxy: %w", err)
		}
		w, err := p.Toxics.AddToxicJson(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("kproxy: adding the request tap to %s: %w", broker, err)
		}
		w.Toxic.(*tapToxic).tap = tp
	}
	return nil
}

// chunk is what a tap hands the log: a stream chunk's bytes and arrival
// time, or word that the stream lost chunks. It holds the bytes, which no
// toxic changes, but not the chunk, whose fields later toxics do.
type chunk struct {
	c    *conn
	up   bool
	data []byte
	at   time.Time
	lost bool
}
