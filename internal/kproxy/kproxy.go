package kproxy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Set is the proxies of one cluster, by name (one per broker listener).
// Its methods are safe for concurrent use.
type Set struct {
	server *toxiproxy.ApiServer

	mu      sync.Mutex
	proxies map[string]*toxiproxy.Proxy

	log   atomic.Pointer[reqLog] // the open request log, if any
	conns atomic.Int64           // connections begun, for their ids in the log
}

// New is an empty Set. It registers the hold and tap toxics with
// Toxiproxy (its registry is Toxiproxy's own; registering again replaces
// them with themselves).
func New() *Set {
	toxics.Register(HoldType, new(holdToxic))
	toxics.Register(tapType, new(tapToxic))
	metrics := toxiproxy.NewMetricsContainer(prometheus.NewRegistry())
	return &Set{server: toxiproxy.NewServer(metrics, zerolog.Nop()), proxies: map[string]*toxiproxy.Proxy{}}
}

// Add starts a proxy called name on listen (host:port; port 0 picks a
// free one) to upstream and returns the address it listens on.
func (s *Set) Add(name, listen, upstream string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.proxies[name]; ok {
		return "", fmt.Errorf("kproxy: proxy %q already exists", name)
	}
	p := toxiproxy.NewProxy(s.server, name, listen, upstream)
	if err := s.addTaps(p, name); err != nil {
		return "", err
	}
	if err := p.Start(); err != nil {
		return "", fmt.Errorf("kproxy: starting proxy %s on %s to %s: %w", name, listen, upstream, err)
	}
	s.proxies[name] = p
	return p.Listen, nil
}

// Names lists the proxies, sorted.
func (s *Set) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.proxies))
	for n := range s.proxies {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (s *Set) proxy(name string) (*toxiproxy.Proxy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.proxies[name]
	if !ok {
		return nil, fmt.Errorf("kproxy: no proxy %q", name)
	}
	return p, nil
}

// Active lists the names of the toxics on proxy name, sorted.
func (s *Set) Active(name string) ([]string, error) {
	p, err := s.proxy(name)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, t := range p.Toxics.GetToxicArray() {
		if w, ok := t.(*toxics.ToxicWrapper); ok && !isTap(w.Name) {
			names = append(names, w.Name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// Heal removes every toxic from every proxy (but the request taps) and
// reads the lists back: it returns nil only when no toxic is left. It is
// idempotent.
func (s *Set) Heal(ctx context.Context) error {
	var errs []error
	for _, name := range s.Names() {
		p, err := s.proxy(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		names, _ := s.Active(name)
		for _, n := range names {
			if err := p.Toxics.RemoveToxic(ctx, n); err != nil {
				errs = append(errs, fmt.Errorf("kproxy: removing toxic %s from %s: %w", n, name, err))
			}
		}
		if left, err := s.Active(name); err != nil || len(left) > 0 {
			errs = append(errs, fmt.Errorf("kproxy: proxy %s still has toxics %v after heal (%v)", name, left, err))
		}
	}
	return errors.Join(errs...)
}

// Close stops every proxy and closes their connections, then the request
// log if one is open. It is idempotent.
func (s *Set) Close() error {
	s.mu.Lock()
	for name, p := range s.proxies {
		p.Stop()
		delete(s.proxies, name)
	}
	s.mu.Unlock()
	if l := s.log.Swap(nil); l != nil {
		return l.shut()
	}
	return nil
}
