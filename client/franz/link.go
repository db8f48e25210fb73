package franz

import (
	"context"
	"errors"
	"net"
	"sync"
)

// errSevered is the dial error of a client whose process has crashed.
var errSevered = errors.New("franz: the client's process has crashed; no connection is made")

// link is a client's network: every connection it dials, which sever
// closes at once, refusing dials afterwards. A crash severs first, so
// that what kgo does on its way out (a leave, a commit) reaches no
// broker, as nothing of a killed process does.
type link struct {
	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
}

// dial is the kgo.Dialer of the link's client.
func (l *link) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	l.mu.Lock()
	cut := l.cut
	l.mu.Unlock()
	if cut {
		return nil, errSevered
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut { // severed while dialing
		c.Close()
		return nil, errSevered
	}
	if l.conns == nil {
		l.conns = map[net.Conn]struct{}{}
	}
	tc := &trackedConn{Conn: c, l: l}
	l.conns[tc] = struct{}{}
	return tc, nil
}

// sever closes every connection and refuses dials from now on.
func (l *link) sever() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = true
	for c := range l.conns {
		c.(*trackedConn).Conn.Close()
	}
	l.conns = nil
}

// trackedConn leaves its link's set when closed.
type trackedConn struct {
	net.Conn
	l *link
}

func (c *trackedConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}
