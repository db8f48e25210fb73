package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// Options tune the provider; the zero value is a good default.
type Options struct {
	// KafkaVersion to run; "" means KAFKA_VERSION or kafkadist.DefaultVersion.
	KafkaVersion string
	// Heap is each JVM's -Xms/-Xmx; "" means 512m (three brokers, two cores).
	Heap string
	// JVMFlags are appended to each broker's java flags (later flags win),
	// e.g. -XX:TieredStopAtLevel=4 to restore C2 for throughput runs.
	JVMFlags []string
	// Loopback forces the no-root fallback even when running as root.
	Loopback bool
	// StartTimeout bounds the readiness wait; 0 means 3 minutes (two
	// shared cores under load have needed close to one).
	StartTimeout time.Duration
	// Logf receives the provider's own messages; nil means stderr.
	Logf func(format string, args ...any)
}

// Provider runs real Kafka brokers as local processes. What does not
// depend on that (admin requests, readiness, health, fencing, cut
// bookkeeping) is realbroker's Cluster, whose hooks it has as its own.
type Provider struct {
	*realbroker.Cluster
	opts Options
	id   string // short run id every resource is tagged with
	dir  string // under Spec.RunDir, or a scratch dir that Stop removes
	// scratch: dir is removed by Stop, so nothing in it outlives a failure.
	scratch bool
	jvm     jvm
	nodes   []*node
	disks   disks  // lazyfs mounts of the nodes' data, when the spec asks
	guests  guests // brokers added to the running cluster (addbroker.go)

	net *network // nil in loopback mode
	nft bool     // namespaces have the kafkachaos nftables table
	// replCuts are links whose broker-listener traffic alone is cut.
	replMu   sync.Mutex
	replCuts [][2]int32
}

// The hooks of cluster/ this provider honours, and how; without root
// (loopback) the network ones answer ErrNoNetworkFaults.
var (
	_ cluster.Provider          = (*Provider)(nil) // JVMs started by this process
	_ cluster.NodeKiller        = (*Provider)(nil) // SIGKILL; the JVM again on its storage
	_ cluster.NodePauser        = (*Provider)(nil) // SIGSTOP / SIGCONT
	_ cluster.NodeStopper       = (*Provider)(nil) // SIGTERM: controlled shutdown
	_ cluster.Partitioner       = (*Provider)(nil) // nft blocked set in each namespace
	_ cluster.LinkCutter        = (*Provider)(nil) // the same set, link by link
	_ cluster.ReplicationCutter = (*Provider)(nil) // nft rules on the broker port alone
	_ cluster.PacketLoser       = (*Provider)(nil) // nft numgen in each namespace
	_ cluster.LinkSlower        = (*Provider)(nil) // tbf on both ends of the veth
	_ cluster.NetworkHealer     = (*Provider)(nil) // all of the above undone, SIGCONT
	_ cluster.EffectVerifier    = (*Provider)(nil) // /proc and nft read back
	_ cluster.HealthChecker     = (*Provider)(nil) // realbroker's admin requests
	_ cluster.ControllerFinder  = (*Provider)(nil) // the same, DescribeQuorum
	_ cluster.CoordinatorFinder = (*Provider)(nil) // the same, FindCoordinator
)

// tempDirPrefix names the scratch directory of a run given no RunDir.
const tempDirPrefix = "kafkachaos-local-"

// New returns a provider; nothing happens until Start.
func New(opts Options) *Provider {
	realbroker.Defaults(&opts.Heap, &opts.StartTimeout, &opts.Logf)
	p := &Provider{opts: opts}
	p.Cluster = realbroker.NewCluster("cluster/local", jvmChecks(), netOps{p})
	return p
}

// Name is "local".
func (p *Provider) Name() string { return "local" }

// RunID is the short id tagging this run's processes, namespaces and rules.
func (p *Provider) RunID() string { return p.id }

// Namespaced reports whether nodes run in network namespaces (root), as
// opposed to the loopback fallback.
func (p *Provider) Namespaced() bool { return p.net != nil }

// Start removes leftovers of crashed runs, fetches Kafka if needed, and
// brings up spec.Brokers KRaft nodes; on any error everything it created
// is removed again before it returns.
func (p *Provider) Start(ctx context.Context, spec cluster.Spec) (err error) {
	if p.id != "" {
		return errors.New("cluster/local: Start called twice")
	}
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return err
	}
	if spec.Brokers > 200 {
		return fmt.Errorf("cluster/local: %d brokers, at most 200 fit a run's /24", spec.Brokers)
	}
	if removed, err := CleanLeftovers(ctx); len(removed) > 0 || err != nil {
		p.opts.Logf("cluster/local: removed leftovers of crashed runs: %v (errors: %v)", removed, err)
	}
	if !have("java") {
		return errors.New("cluster/local: java not found on PATH (Kafka 4 needs Java 17+)")
	}
	dist, err := kafkadist.Ensure(ctx, p.opts.KafkaVersion)
	if err != nil {
		return err
	}
	if err := checkQuorumVersion(spec, dist.Version); err != nil {
		return err
	}
	p.id = newRunID()
	if err := writeOwner(p.id, spec.RunID); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(p.startFailed(err), p.Stop(context.WithoutCancel(ctx)))
		}
	}()
	if err := p.prepareDir(spec); err != nil {
		return err
	}
	p.jvm = jvm{classpath: dist.Classpath(), heap: p.opts.Heap, runID: p.id,
		log4j: filepath.Join(p.dir, "log4j2.properties"), flags: p.opts.JVMFlags, log4j1: dist.Log4j1()}
	config := log4jConfig
	if p.jvm.log4j1 {
		p.jvm.log4j, config = filepath.Join(p.dir, "log4j.properties"), log4j1Config
	}
	if spec.Log != nil {
		p.jvm.extraLog = &lockedWriter{w: spec.Log}
	}
	if err := os.WriteFile(p.jvm.log4j, []byte(config), 0o644); err != nil {
		return err
	}
	if err := p.placeNodes(ctx, spec.Brokers); err != nil {
		return err
	}
	if err := p.mountDisks(spec); err != nil {
		return err
	}
	if spec.Proxied {
		if err := p.startProxies(); err != nil {
			return err
		}
	}
	if spec.Clocks {
		if err := p.startClocks(); err != nil {
			return err
		}
	}
	if spec.ReplicationProxied {
		if err := p.startReplicationProxies(); err != nil {
			return err
		}
	}
	began := time.Now()
	if err := p.launch(ctx, spec); err != nil {
		return err
	}
	if err := p.CreateTopics(ctx, spec.Topics...); err != nil {
		return err
	}
	p.opts.Logf("cluster/local: run %s: %d Kafka %s brokers serving at %s after %s (dir %s)",
		p.id, len(p.nodes), dist.Version, p.Bootstrap(), time.Since(began).Round(time.Millisecond), p.dir)
	return nil
}

// startErrorFile, in the run's directory, holds the error of a failed Start.
const startErrorFile = "start-error.txt"

// startFailed names every node's output files in err and writes err to
// startErrorFile, so that a run directory kept after a failed start says
// why: which step failed, with what command line and output. A scratch
// directory goes with Stop; err then carries the log tails alone.
func (p *Provider) startFailed(err error) error {
	if p.dir == "" || p.scratch {
		return err
	}
	var outputs []string
	for _, n := range p.nodes {
		outputs = append(outputs, n.outputs()...)
	}
	if len(outputs) > 0 {
		err = fmt.Errorf("%w\nnode output (command lines and JVM output): %s", err, strings.Join(outputs, ", "))
	}
	path := filepath.Join(p.dir, startErrorFile)
	if werr := os.WriteFile(path, []byte(err.Error()+"\n"), 0o644); werr != nil {
		return errors.Join(err, fmt.Errorf("cluster/local: keeping the start error: %w", werr))
	}
	return fmt.Errorf("%w\n(kept in %s)", err, path)
}

func (p *Provider) prepareDir(spec cluster.Spec) error {
	if spec.RunDir == "" {
		d, err := os.MkdirTemp("", tempDirPrefix+p.id+"-")
		if err != nil {
			return err
		}
		p.dir, p.scratch = d, true
		return nil
	}
	p.dir = filepath.Join(spec.RunDir, "kafka-"+p.id)
	return os.MkdirAll(p.dir, 0o755)
}

// placeNodes gives each node an address: its own namespace on the run's
// bridge as root, otherwise loopback with distinct ports.
func (p *Provider) placeNodes(ctx context.Context, brokers int) error {
	namespaced := !p.opts.Loopback && os.Geteuid() == 0 && have("ip")
	if namespaced {
		w, err := setupNetwork(ctx, p.id)
		if err != nil {
			return err
		}
		p.net, p.nft = w, have("nft")
		if !p.nft {
			p.opts.Logf("cluster/local: nft not installed: partitions and packet loss unavailable (install Debian's nftables)")
		}
		p.opts.Logf("cluster/local: run %s: namespaces kc-%s-n*, bridge %s %s0/24, FORWARD rule: %s",
			p.id, p.id, bridgeName(p.id), w.Prefix, w.fwd)
	} else {
		p.opts.Logf("cluster/local: run %s: not root (or loopback asked): LOOPBACK FALLBACK on 127.0.0.1 — supports kill and pause only, no partitions, packet loss or slow links", p.id)
	}
	for i := 1; i <= brokers; i++ {
		n, err := p.placeNode(ctx, int32(i))
		if err != nil {
			return err
		}
		p.nodes = append(p.nodes, n)
	}
	p.setNodes(p.nodes)
	return nil
}

// placeNode gives node id its address (its namespace on the bridge when
// the run has one, loopback ports otherwise) and its directory.
func (p *Provider) placeNode(ctx context.Context, id int32) (*node, error) {
	n := &node{id: id}
	if p.net != nil {
		n.ns, n.ip, n.port, n.ctrlPort, n.proxyPort = nsName(p.id, n.id), p.net.NodeIP(n.id), 9092, 9093, 9094
		if err := p.net.addNode(ctx, n.id, p.nft); err != nil {
			return nil, err
		}
	} else {
		ports, err := freePorts(3)
		if err != nil {
			return nil, err
		}
		n.ip, n.port, n.ctrlPort, n.proxyPort = "127.0.0.1", ports[0], ports[1], ports[2]
	}
	n.dir = filepath.Join(p.dir, fmt.Sprintf("n%d", n.id))
	return n, os.MkdirAll(n.dir, 0o755)
}

// startProxies puts a proxy in front of each node's proxied listener; the
// nodes advertise them (serverProperties), so the clients go through them.
func (p *Provider) startProxies() error {
	up := make(map[int32]string, len(p.nodes))
	for _, n := range p.nodes {
		up[n.id] = net.JoinHostPort(n.ip, strconv.Itoa(n.proxyPort))
	}
	addrs, err := p.StartProxies(up)
	if err != nil {
		return err
	}
	for _, n := range p.nodes {
		n.proxyAddr = addrs[n.id]
	}
	return nil
}

// setNodes makes nodes the run's, in the shared part too.
func (p *Provider) setNodes(nodes []*node) {
	p.nodes = nodes
	realbroker.Place(p.Cluster, nodes)
}

// launch writes configs, formats storage, starts the JVMs and waits until
// the cluster serves.
func (p *Provider) launch(ctx context.Context, spec cluster.Spec) error {
	clusterID := realbroker.NewClusterID()
	p.assignVoters(spec)
	var wg sync.WaitGroup
	errs := make([]error, len(p.nodes))
	for i, n := range p.nodes {
		props := serverProperties(n, p.nodes, filepath.Join(n.dir, "data"), spec.BrokerConfigs)
		if err := os.WriteFile(filepath.Join(n.dir, "server.properties"), []byte(props), 0o644); err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = n.format(ctx, p.jvm, clusterID)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	p.disks.Writeback()
	for _, n := range p.nodes {
		if err := n.start(p.jvm); err != nil {
			return err
		}
	}
	exited := func(i int) string { return p.nodes[i].exited() }
	return p.Serve(ctx, p.opts.StartTimeout, p.id, exited, func() string { return p.logTails(40) })
}

// Stop kills every broker and removes everything tagged with the run id.
// It is idempotent and safe after a failed Start.
func (p *Provider) Stop(ctx context.Context) error {
	if p.id == "" {
		return nil
	}
	p.Close()
	var errs []error
	for _, n := range p.nodes {
		errs = append(errs, n.kill(ctx))
	}
	errs = append(errs, p.killGuests(ctx), p.unmountDisks())
	_, err := removeRun(ctx, p.id) // the scratch dir too
	errs = append(errs, err, p.removeClocks())
	p.net = nil
	p.setNodes(nil)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster/local: stopping run %s: %w", p.id, err)
	}
	return nil
}

// Nodes lists the brokers; Up is false while killed or paused.
func (p *Provider) Nodes() []cluster.Node {
	out := make([]cluster.Node, len(p.nodes))
	for i, n := range p.nodes {
		out[i] = cluster.Node{ID: n.id, Addr: n.addr(), Up: n.isUp()}
	}
	return out
}

// Capabilities: kill, pause, reassignments, unregistrations and added
// brokers always; partitions with namespaces and nft.
func (p *Provider) Capabilities() []cluster.Capability {
	caps := []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapProxy, cluster.CapReassign, cluster.CapUnregister, cluster.CapAddBroker}
	if p.net != nil && p.nft {
		caps = append(caps, cluster.CapPartition)
	}
	return slices.Concat(caps, diskCaps(), clockCaps(), p.quorumCaps())
}

func (p *Provider) node(id int32) (*node, error) {
	i, err := p.Index(id)
	if err != nil {
		return nil, err
	}
	return p.nodes[i], nil
}

// freePorts picks n loopback ports a broker can bind: below the kernel's
// ephemeral range, so that no outgoing connection of another process takes
// one between the check and the broker's bind (a port from ":0" is an
// ephemeral one, and was lost so to a test's client). Each is checked free
// by listening on it.
func freePorts(n int) ([]int, error) {
	low := ephemeralLow()
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries == 1000 {
			return nil, fmt.Errorf("cluster/local: no free port below %d in 1000 tries", low)
		}
		port := portFloor + rand.IntN(low-portFloor)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue
		}
		ls = append(ls, l)
		ports = append(ports, port)
	}
	return ports, nil
}

// portFloor is the lowest port freePorts picks: clear of the well-known and
// registered ports services listen on.
const portFloor = 20000

// ephemeralLow is the first port of the kernel's ephemeral range (Linux
// default 32768 when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 32768
	}
	low, err := strconv.Atoi(f[0])
	if err != nil || low <= portFloor+1000 {
		return 32768
	}
	return low
}

// lockedWriter serialises the brokers' output into one caller writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// NodeProcess is how node id runs: its network namespace ("" in loopback
// mode) and the java command line the provider starts it with, for a
// test that drives the node from elsewhere (cluster/external's, over SSH
// into that namespace). It is valid between Start and Stop.
func (p *Provider) NodeProcess(id int32) (ns string, argv []string, err error) {
	n, err := p.node(id)
	if err != nil {
		return "", nil, err
	}
	return n.ns, append([]string{"java"}, p.jvm.args(n, "kafka.Kafka", filepath.Join(n.dir, "server.properties"))...), nil
}
