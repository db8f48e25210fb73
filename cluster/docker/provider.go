package docker

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
	"github.com/moby/moby/client"
)

// Options tune the provider; the zero value is a good default.
type Options struct {
	// KafkaVersion to run; "" means KAFKA_VERSION or kafkadist.DefaultVersion.
	KafkaVersion string
	// Image to run; "" means apache/kafka:<version> when it can be pulled,
	// else kafkachaos/kafka:<version> built locally (see EnsureImage).
	// KAFKACHAOS_DOCKER_IMAGE sets it from the environment.
	Image string
	// Heap is each broker's -Xms/-Xmx; "" means 512m (three brokers, two cores).
	Heap string
	// StartTimeout bounds the readiness wait; 0 means 3 minutes.
	StartTimeout time.Duration
	// Logf receives the provider's own messages; nil means stderr.
	Logf func(format string, args ...any)
}

// Provider runs real Kafka brokers in containers. What does not depend on
// that (admin requests, readiness, health, fencing, cut bookkeeping) is
// realbroker's Cluster, whose hooks it has as its own.
type Provider struct {
	*realbroker.Cluster
	opts   Options
	id     string // short run id every container, network and rule carries
	labels map[string]string
	dir    string    // Spec.RunDir/kafka-<id>, or "" to keep no logs
	logOut io.Writer // Spec.Log
	cli    *client.Client
	image  string
	net    *runNet
	nodes  []*node
	clocks bool  // the run's brokers have movable clocks (clock.go)
	disks  disks // the run's lazyfs mounts (disk.go)
}

// The hooks of cluster/ this provider honours, and how.
var (
	_ cluster.Provider          = (*Provider)(nil) // containers via testcontainers-go
	_ cluster.NodeKiller        = (*Provider)(nil) // engine kill; container start again
	_ cluster.NodePauser        = (*Provider)(nil) // docker pause: the cgroup freezer
	_ cluster.NodeStopper       = (*Provider)(nil) // docker stop: SIGTERM, a minute's grace
	_ cluster.Partitioner       = (*Provider)(nil) // nft table rewritten in each netns
	_ cluster.LinkCutter        = (*Provider)(nil) // the same table, link by link
	_ cluster.PacketLoser       = (*Provider)(nil) // nft numgen, kept across restarts
	_ cluster.LinkSlower        = (*Provider)(nil) // tbf on both ends of the veth
	_ cluster.NetworkHealer     = (*Provider)(nil) // all of the above undone, unpause
	_ cluster.EffectVerifier    = (*Provider)(nil) // the engine's state, nft read back
	_ cluster.HealthChecker     = (*Provider)(nil) // realbroker's admin requests
	_ cluster.ControllerFinder  = (*Provider)(nil) // the same, DescribeQuorum
	_ cluster.CoordinatorFinder = (*Provider)(nil) // the same, FindCoordinator
	_ cluster.ClockSkewer       = (*Provider)(nil) // libfaketime in the image, control file bind-mounted
	_ cluster.DiskFaulter       = (*Provider)(nil) // lazyfs on the host, bind-mounted as the data directory
)

// New returns a provider; nothing happens until Start.
func New(opts Options) *Provider {
	if opts.Image == "" {
		opts.Image = os.Getenv("KAFKACHAOS_DOCKER_IMAGE")
	}
	realbroker.Defaults(&opts.Heap, &opts.StartTimeout, &opts.Logf)
	p := &Provider{opts: opts}
	p.Cluster = realbroker.NewCluster("cluster/docker", engineChecks(), netOps{p})
	return p
}

// Name is "docker".
func (p *Provider) Name() string { return "docker" }

// RunID is the short id on this run's containers, network and rule.
func (p *Provider) RunID() string { return p.id }

// Image is the Kafka image the cluster runs (valid after Start).
func (p *Provider) Image() string { return p.image }

// Start removes leftovers of crashed runs, makes sure the image exists,
// creates the run's network and brings up spec.Brokers KRaft containers;
// on any error everything it created is removed before it returns.
func (p *Provider) Start(ctx context.Context, spec cluster.Spec) (err error) {
	if p.id != "" {
		return errors.New("cluster/docker: Start called twice")
	}
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.Brokers > 200 {
		return fmt.Errorf("cluster/docker: %d brokers, at most 200 fit a run's /24", spec.Brokers)
	}
	if spec.ReplicationProxied {
		return errReplicationProxies
	}
	if spec.DynamicQuorum {
		return errors.New("cluster/docker: no dynamic controller quorum: its containers are formatted with static voters (controller.quorum.voters); the local provider formats one")
	}
	if p.cli, err = connect(ctx, p.opts.Logf); err != nil {
		return err
	}
	if removed, err := cleanLeftovers(ctx, p.cli); len(removed) > 0 || err != nil {
		p.opts.Logf("cluster/docker: removed leftovers of crashed runs: %v (errors: %v)", removed, err)
	}
	version := p.opts.KafkaVersion
	if version == "" {
		version = kafkadist.Version()
	}
	if err := faultsPossible(spec); err != nil {
		return err
	}
	ref := p.opts.Image
	if spec.Clocks {
		if ref, err = p.clockImage(version); err != nil {
			return err
		}
	}
	began := time.Now()
	if p.image, err = EnsureImage(ctx, p.cli, version, ref, p.opts.Logf); err != nil {
		return err
	}
	imageTime := time.Since(began)
	p.id = newRunID()
	p.labels = runLabels(p.id, spec.RunID)
	defer func() {
		if err != nil {
			err = errors.Join(err, p.Stop(context.WithoutCancel(ctx)))
		}
	}()
	if spec.RunDir != "" {
		p.dir = filepath.Join(spec.RunDir, "kafka-"+p.id)
	}
	p.logOut = spec.Log
	if p.net, err = createNetwork(ctx, p.cli, p.id, p.labels); err != nil {
		return err
	}
	fwd, err := addForwardRule(ctx, p.id)
	if err != nil {
		return err
	}
	p.net.fwd = fwd
	if spec.Clocks || spec.LazyDisks {
		if err := makeHostDir(p.id); err != nil {
			return err
		}
	}
	began = time.Now()
	if err := p.launch(ctx, spec); err != nil {
		return err
	}
	if err := p.CreateTopics(ctx, spec.Topics...); err != nil {
		return err
	}
	p.opts.Logf("cluster/docker: run %s: %d brokers (%s) serving at %s after %s (image ready in %s); network %s, bridge %s, FORWARD: %s",
		p.id, len(p.nodes), p.image, p.Bootstrap(), time.Since(began).Round(time.Millisecond),
		imageTime.Round(time.Millisecond), p.net.name, p.net.bridge, p.net.fwd)
	return nil
}

// launch starts every container in parallel and waits until the cluster
// serves.
func (p *Provider) launch(ctx context.Context, spec cluster.Spec) error {
	ips := make(map[int32]string)
	var nodes []*node
	for i := 1; i <= spec.Brokers; i++ {
		n := &node{id: int32(i), ip: p.net.NodeIP(int32(i))}
		ips[n.id] = n.ip
		nodes = append(nodes, n)
	}
	p.setNodes(nodes)
	var proxies map[int32]string
	if spec.Proxied {
		up := make(map[int32]string, len(ips))
		for id, ip := range ips {
			up[id] = net.JoinHostPort(ip, strconv.Itoa(proxiedPort))
		}
		var err error
		if proxies, err = p.StartProxies(up); err != nil {
			return err
		}
	}
	clusterID := realbroker.NewClusterID()
	var wg sync.WaitGroup
	errs := make([]error, len(p.nodes))
	for i, n := range p.nodes {
		env := nodeEnv(n.id, ips, proxies, clusterID, p.opts.Heap, spec.BrokerConfigs)
		if err := p.prepareNode(spec, n, env); err != nil {
			wg.Wait()
			return err
		}
		wg.Go(func() {
			if errs[i] = p.startNode(ctx, n, env); errs[i] == nil {
				errs[i] = p.applyNet(ctx, n, p.Blocked(n.id))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	exited := func(i int) string { return p.exited(ctx, p.nodes[i]) }
	tails := func() string { return p.logTails(context.WithoutCancel(ctx), 40) }
	return p.Serve(ctx, p.opts.StartTimeout, p.id, exited, tails)
}

// setNodes makes nodes the run's, in the shared part too.
func (p *Provider) setNodes(nodes []*node) {
	p.nodes = nodes
	realbroker.Place(p.Cluster, nodes)
}

// Stop copies the brokers' logs into the run directory, then removes every
// container, the network and the FORWARD rule of the run. It is idempotent
// and safe after a failed Start.
func (p *Provider) Stop(ctx context.Context) error {
	if p.id == "" || p.cli == nil {
		return nil
	}
	p.Close()
	var errs []error
	if len(p.nodes) > 0 {
		errs = append(errs, p.saveLogs(ctx))
	}
	_, err := removeRun(ctx, p.cli, p.id, p.unmountDisks)
	errs = append(errs, err)
	p.net = nil
	p.setNodes(nil)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster/docker: stopping run %s: %w", p.id, err)
	}
	return nil
}

// Nodes lists the brokers; Up is false while killed or paused.
func (p *Provider) Nodes() []cluster.Node {
	out := make([]cluster.Node, len(p.nodes))
	for i, n := range p.nodes {
		n.mu.Lock()
		up := !n.killed && !n.paused
		n.mu.Unlock()
		out[i] = cluster.Node{ID: n.id, Addr: n.addr(), Up: up}
	}
	return out
}

// Capabilities: kill, pause, reassignments and partitions (nft inside the containers
// namespaces, so root on the engine's host); movable clocks unless the
// options name an image without libfaketime; lazy disks as root with
// /dev/fuse and a local engine.
func (p *Provider) Capabilities() []cluster.Capability {
	caps := []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapPartition, cluster.CapProxy, cluster.CapReassign}
	return append(append(caps, p.clockCaps()...), diskCaps()...)
}

// Verified says what each hook checks before it returns nil: the engine's
// view of the container, or what realbroker reads back.
func (p *Provider) Verified(e cluster.Effect) string { return p.VerifiedEffect(string(e)) }

// CreateTopics creates topics and waits until every partition has a leader.
func (p *Provider) CreateTopics(ctx context.Context, topics ...cluster.TopicSpec) error {
	return p.CreateTopicList(ctx, topics)
}

func (p *Provider) node(id int32) (*node, error) {
	i, err := p.Index(id)
	if err != nil {
		return nil, err
	}
	return p.nodes[i], nil
}

// newRunID is 8 random lower-case letters and digits: short enough for an
// interface name (kcd + id), unique enough for concurrent runs.
func newRunID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 8)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func mustAddr(ip string) netip.Addr { return netip.MustParseAddr(ip) }
