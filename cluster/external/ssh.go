package external

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// dialTimeout bounds an SSH connection's handshake.
const dialTimeout = 15 * time.Second

// hostKeys is the host-key policy the inventory chose.
func (inv *Inventory) hostKeys() (ssh.HostKeyCallback, error) {
	if inv.InsecureIgnoreHostKey {
		return ssh.InsecureIgnoreHostKey(), nil
	}
	cb, err := knownhosts.New(inv.file(inv.KnownHosts))
	if err != nil {
		return nil, inv.top("known-hosts", "%v", err)
	}
	return cb, nil
}

// dial opens an SSH connection to hosts[i] with its key.
func (inv *Inventory) dial(ctx context.Context, i int, keys ssh.HostKeyCallback) (*ssh.Client, error) {
	h := &inv.Hosts[i]
	pem, err := os.ReadFile(inv.file(h.Key))
	if err != nil {
		return nil, inv.hostErr(i, h, "key", "%v", err)
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		return nil, inv.hostErr(i, h, "key", "%s: %v (a key with a passphrase is not read: use one without, kept private)", h.Key, err)
	}
	cfg := &ssh.ClientConfig{User: h.User, Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: keys, Timeout: dialTimeout}
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", h.sshAddr())
	if err != nil {
		return nil, fmt.Errorf("ssh %s@%s: %w", h.User, h.sshAddr(), err)
	}
	c, chans, reqs, err := ssh.NewClientConn(conn, h.sshAddr(), cfg)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("ssh %s@%s: %w", h.User, h.sshAddr(), err)
	}
	return ssh.NewClient(c, chans, reqs), nil
}

// shell runs script with sh on the far end of c, stdin fed to it, and
// returns its output; on failure the error carries the script and output.
// A cancelled ctx closes the session.
func shell(ctx context.Context, c *ssh.Client, stdin, script string) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var out syncBuffer
	s.Stdout, s.Stderr = &out, &out
	if stdin != "" {
		s.Stdin = strings.NewReader(stdin)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run("sh -c " + quote(script)) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		s.Close()
		err = errors.Join(ctx.Err(), <-done)
	}
	if err != nil {
		return out.String(), fmt.Errorf("%q: %w: %s", script, err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}

// syncBuffer is a buffer the session's stdout and stderr copiers, two
// goroutines, both write.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// quote makes s one shell word.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
