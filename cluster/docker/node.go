package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// node is one combined broker+controller container.
type node struct {
	id int32
	ip string
	c  *testcontainers.DockerContainer

	binds []string // host:container bind mounts (clock.go, disk.go)

	mu     sync.Mutex
	paused bool
	killed bool
	loss   int // packet loss percent to re-apply after a restart
}

// NodeID and ClientAddr make a node realbroker.Placed.
func (n *node) NodeID() int32 { return n.id }

func (n *node) ClientAddr() string { return n.addr() }

func (n *node) addr() string { return net.JoinHostPort(n.ip, strconv.Itoa(clientPort)) }

func containerName(id string, n int32) string { return fmt.Sprintf("kafkachaos-%s-n%d", id, n) }

// startNode creates and starts node n's container with testcontainers-go.
// Readiness is the provider's job (waitReady), not a wait strategy's: it
// needs the whole quorum, not one container.
func (p *Provider) startNode(ctx context.Context, n *node, env map[string]string) error {
	c, err := testcontainers.GenericContainer(ctx, p.containerRequest(n, env))
	if dc, ok := c.(*testcontainers.DockerContainer); ok && dc != nil {
		n.c = dc
	}
	if err != nil {
		return fmt.Errorf("cluster/docker: starting node %d: %w", n.id, err)
	}
	if n.c == nil {
		return fmt.Errorf("cluster/docker: node %d: testcontainers returned %T, not a Docker container", n.id, c)
	}
	return nil
}

// containerRequest is node n's container: the run's image, labels and
// network at the node's fixed address, env, and the node's bind mounts.
func (p *Provider) containerRequest(n *node, env map[string]string) testcontainers.GenericContainerRequest {
	netName := p.net.name
	ip := n.ip
	binds := slices.Clone(n.binds)
	return testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:          p.image,
			Name:           containerName(p.id, n.id),
			Env:            env,
			Labels:         p.labels,
			Networks:       []string{netName},
			NetworkAliases: map[string][]string{netName: {fmt.Sprintf("n%d", n.id)}},
			EndpointSettingsModifier: func(eps map[string]*network.EndpointSettings) {
				if eps[netName] == nil {
					eps[netName] = &network.EndpointSettings{}
				}
				eps[netName].IPAMConfig = &network.EndpointIPAMConfig{IPv4Address: mustAddr(ip)}
			},
			HostConfigModifier: func(hc *container.HostConfig) { hc.Binds = append(hc.Binds, binds...) },
		},
		Started: true,
		Logger:  tcLogger{p.opts.Logf},
	}
}

// tcLogger sends testcontainers-go's messages to the provider's log.
type tcLogger struct{ logf func(string, ...any) }

func (l tcLogger) Printf(format string, args ...any) { l.logf("testcontainers: "+format, args...) }

var _ tclog.Logger = tcLogger{}

// state is the engine's view of the node's container.
func (p *Provider) state(ctx context.Context, n *node) (running, paused bool, pid int, err error) {
	r, err := p.cli.ContainerInspect(ctx, n.c.GetContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		return false, false, 0, fmt.Errorf("cluster/docker: inspecting node %d: %w", n.id, err)
	}
	s := r.Container.State
	if s == nil {
		return false, false, 0, fmt.Errorf("cluster/docker: node %d: engine reports no state", n.id)
	}
	return s.Running, s.Paused, s.Pid, nil
}

// pid is the container's init process on the host: the handle to its
// network namespace. It changes with every restart.
func (p *Provider) pid(ctx context.Context, n *node) (int, error) {
	running, _, pid, err := p.state(ctx, n)
	if err != nil {
		return 0, err
	}
	if !running || pid == 0 {
		return 0, fmt.Errorf("cluster/docker: node %d is not running", n.id)
	}
	return pid, nil
}

// exited describes how the container ended, or "" while it runs.
func (p *Provider) exited(ctx context.Context, n *node) string {
	r, err := p.cli.ContainerInspect(ctx, n.c.GetContainerID(), client.ContainerInspectOptions{})
	if err != nil || r.Container.State == nil || r.Container.State.Running {
		return ""
	}
	return fmt.Sprintf("exited with status %d", r.Container.State.ExitCode)
}

// logs returns the container's output so far.
func (p *Provider) logs(ctx context.Context, n *node) (string, error) {
	rc, err := n.c.Logs(ctx)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	return string(b), err
}

func (p *Provider) logTail(ctx context.Context, n *node, lines int) string {
	s, err := p.logs(ctx, n)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return tail(s, lines)
}

func (p *Provider) logTails(ctx context.Context, lines int) string {
	var b strings.Builder
	for _, n := range p.nodes {
		fmt.Fprintf(&b, "--- node %d (%s) log tail:\n%s\n", n.id, containerName(p.id, n.id), p.logTail(ctx, n, lines))
	}
	return b.String()
}

// saveLogs writes every node's output into the run directory (and to
// Spec.Log), before the containers are removed.
func (p *Provider) saveLogs(ctx context.Context) error {
	var errs []error
	for _, n := range p.nodes {
		if n.c == nil {
			continue
		}
		s, err := p.logs(ctx, n)
		if err != nil {
			errs = append(errs, fmt.Errorf("node %d logs: %w", n.id, err))
			continue
		}
		if p.logOut != nil {
			fmt.Fprintf(p.logOut, "=== kafkachaos: node %d (%s)\n%s", n.id, containerName(p.id, n.id), s)
		}
		if p.dir == "" {
			continue
		}
		path := filepath.Join(p.dir, fmt.Sprintf("n%d", n.id), "broker.log")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, os.WriteFile(path, []byte(s), 0o644))
	}
	return errors.Join(errs...)
}
