package embedded

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/kproxy"
)

// proxies are the embedded cluster's client proxies, for a run whose Spec
// is Proxied: kfake listens where listen puts it and advertises the proxy
// in front of it, so every client (the harness's admin client too: kfake
// has one listener) reaches a broker through its proxy.
//
// Behavior: kfake advertises its listener's address and re-listens on the
// same port when a killed node is added back; listen hands it a listener on
// a leased port of the broker's own (ports.go) that reports the proxy's
// address, and on a restart (asked for the proxy's port) listens on that
// same own port again, so the proxy's upstream never changes and the proxy
// never stops listening.
type proxies struct {
	set *kproxy.Set

	mu     sync.Mutex
	ports  []int             // the brokers' own ports, leased, in start order
	byPort map[int]string    // proxy port -> proxy name
	own    map[string]string // proxy name -> the broker's own address
}

func newProxies(ports []int) *proxies {
	return &proxies{set: kproxy.New(), ports: ports, byPort: map[int]string{}, own: map[string]string{}}
}

// listen is kfake's ListenFn.
func (p *proxies) listen(network, address string) (net.Listener, error) {
	_, port, err := splitPort(address)
	if err != nil {
		return nil, fmt.Errorf("embedded cluster: listen address %q: %w", address, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if name, known := p.byPort[port]; known {
		l, err := net.Listen(network, p.own[name]) // a restart: the node's own port again
		if err != nil {
			return nil, fmt.Errorf("embedded cluster: restart behind proxy %s: %w", name, err)
		}
		tcp, _ := net.ResolveTCPAddr("tcp", address)
		return advertised{Listener: l, addr: tcp}, nil
	}
	if len(p.own) == len(p.ports) {
		return nil, fmt.Errorf("embedded cluster: a broker beyond the %d whose ports were leased", len(p.ports))
	}
	l, err := net.Listen(network, "127.0.0.1:"+strconv.Itoa(p.ports[len(p.own)]))
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("n%d", len(p.own))
	addr, err := p.set.Add(name, "127.0.0.1:0", l.Addr().String())
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("embedded cluster: %w", err)
	}
	_, pport, _ := splitPort(addr)
	p.byPort[pport], p.own[name] = name, l.Addr().String()
	tcp, _ := net.ResolveTCPAddr("tcp", addr)
	return advertised{Listener: l, addr: tcp}, nil
}

// ownAddr is the broker's own address behind the proxy at addr: where a
// kill is verified (the proxy itself still accepts connections).
func (p *proxies) ownAddr(addr string) string {
	_, port, err := splitPort(addr)
	if err != nil {
		return addr
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if own, ok := p.own[p.byPort[port]]; ok {
		return own
	}
	return addr
}

// advertised is a listener that reports another address: kfake advertises
// what Addr says.
type advertised struct {
	net.Listener
	addr net.Addr
}

func (a advertised) Addr() net.Addr { return a.addr }

func proxyName(node int32) string { return "n" + strconv.Itoa(int(node)) }

func (e *Provider) proxySet() (*kproxy.Set, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.proxies == nil {
		return nil, fmt.Errorf("embedded cluster: this run has no client proxies (a scenario with a latency or delayed-requests fault asks for them)")
	}
	return e.proxies.set, nil
}

// LogRequests implements cluster.RequestLogger.
func (e *Provider) LogRequests(path string) (func() error, error) {
	set, err := e.proxySet()
	if err != nil {
		return nil, err
	}
	return set.LogRequests(path)
}

// AddToxic implements cluster.Proxier.
func (e *Provider) AddToxic(ctx context.Context, node int32, name string, t kproxy.Toxic) error {
	set, err := e.proxySet()
	if err != nil {
		return err
	}
	if err := set.ApplyVerified(ctx, proxyName(node), name, t); err != nil {
		return fmt.Errorf("embedded cluster: %w", err)
	}
	return nil
}

// HealToxics implements cluster.Proxier.
func (e *Provider) HealToxics(ctx context.Context) error {
	set, err := e.proxySet()
	if err != nil {
		return nil // no proxies, no toxics
	}
	return set.Heal(ctx)
}

// HeldBy implements cluster.Proxier.
func (e *Provider) HeldBy(node int32, name string) (int64, error) {
	set, err := e.proxySet()
	if err != nil {
		return 0, err
	}
	return set.HeldBy(proxyName(node), name)
}

// ProbeProxy implements cluster.Proxier.
func (e *Provider) ProbeProxy(ctx context.Context, node int32) (time.Duration, error) {
	set, err := e.proxySet()
	if err != nil {
		return 0, err
	}
	return set.ProbeVia(ctx, proxyName(node))
}

// ownAddr is the broker's own address behind addr: addr itself without
// proxies.
func (e *Provider) ownAddr(addr string) string {
	e.mu.Lock()
	p := e.proxies
	e.mu.Unlock()
	if p == nil {
		return addr
	}
	return p.ownAddr(addr)
}
