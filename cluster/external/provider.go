package external

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
	"golang.org/x/crypto/ssh"
)

// Provider is the user's own Kafka cluster, driven over SSH: it starts
// nothing, and its faults are commands on the hosts.
type Provider struct {
	*realbroker.Cluster
	inv   *Inventory
	id    string // the run's tag: its nft tables are TableName(id)
	logf  func(format string, args ...any)
	hosts []*host // the brokers' hosts, by node id order of the inventory
	all   []*host // every host, controllers too
	// client is the harness's address as the hosts see it (ClientNode).
	client string
	caps   []cluster.Capability
	// created are the topics the run created, which Stop deletes: the
	// cluster outlives the run, and the next run creates its own again.
	createdMu sync.Mutex
	created   []string
}

// host is one inventory host with its SSH connection and fault state.
type host struct {
	Host
	index int    // in the inventory
	ip    string // its address as its peers see it, for cuts
	conn  *ssh.Client
	root  bool
	nft   bool

	mu      sync.Mutex
	blocked []string // addresses cut from it now
	loss    int      // percent of received packets dropped
	paused  bool
	killed  bool
}

// NodeID and ClientAddr make a host realbroker.Placed.
func (h *host) NodeID() int32      { return *h.Host.NodeID }
func (h *host) ClientAddr() string { return h.Broker }

// The hooks of cluster/ this provider honours, and how.
var (
	_ cluster.Provider          = (*Provider)(nil) // the inventory's cluster; Start creates topics only
	_ cluster.NodeKiller        = (*Provider)(nil) // SIGKILL over SSH; the start command or unit again
	_ cluster.NodeStopper       = (*Provider)(nil) // the stop command, the unit, or SIGTERM
	_ cluster.NodePauser        = (*Provider)(nil) // SIGSTOP / SIGCONT over SSH
	_ cluster.Partitioner       = (*Provider)(nil) // nft table kafkachaos_<run> on each host
	_ cluster.LinkCutter        = (*Provider)(nil) // the same set, link by link
	_ cluster.NetworkHealer     = (*Provider)(nil) // the tables deleted, SIGCONT
	_ cluster.EffectVerifier    = (*Provider)(nil) // /proc and nft read back over SSH
	_ cluster.HealthChecker     = (*Provider)(nil) // realbroker's admin requests
	_ cluster.ControllerFinder  = (*Provider)(nil) // the same, DescribeQuorum
	_ cluster.CoordinatorFinder = (*Provider)(nil) // the same, FindCoordinator
)

// ErrNoNetworkFaults is the error of a cut or loss on a cluster whose
// hosts cannot all take nft rules (no nft, or the SSH user is not root).
var ErrNoNetworkFaults = errors.New("cluster/external: network faults need nft and root on every host")

// startTimeout bounds the wait for the cluster to serve.
const startTimeout = 2 * time.Minute

// Open loads the inventory at path; nothing is contacted until Start.
// logf receives the provider's messages (nil: stderr).
func Open(path string, logf func(format string, args ...any)) (*Provider, error) {
	inv, err := Load(path)
	if err != nil {
		return nil, err
	}
	return New(inv, logf), nil
}

// New is the provider of inv; nothing is contacted until Start. logf
// receives the provider's messages; nil means stderr.
func New(inv *Inventory, logf func(format string, args ...any)) *Provider {
	if logf == nil {
		logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	p := &Provider{inv: inv, logf: logf}
	p.Cluster = realbroker.NewCluster("cluster/external", sshChecks(), netOps{p})
	return p
}

// Name is "external".
func (p *Provider) Name() string { return "external" }

// RunID is the tag of this run's rules on the hosts.
func (p *Provider) RunID() string { return p.id }

// TableName is the nft table (family inet) a run tagged id has on each host.
func TableName(id string) string { return tablePrefix + id }

// tablePrefix starts every table the provider creates: Clean finds them by it.
const tablePrefix = "kafkachaos_"

func newRunID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Start connects to every host, probes what each can do, waits until the
// cluster serves and creates spec's topics. It starts no broker: the
// cluster exists. spec.Brokers must be 0 or the inventory's broker count.
func (p *Provider) Start(ctx context.Context, spec cluster.Spec) (err error) {
	if p.id != "" {
		return errors.New("cluster/external: Start called twice")
	}
	brokers := 0
	for _, h := range p.inv.Hosts {
		if h.IsBroker() {
			brokers++
		}
	}
	if spec.Brokers != 0 && spec.Brokers != brokers {
		return fmt.Errorf("cluster/external: the run asks for %d brokers, the inventory %s has %d", spec.Brokers, p.inv.path, brokers)
	}
	spec.Brokers = brokers
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return err
	}
	p.id = newRunID()
	defer func() {
		if err != nil {
			err = errors.Join(err, p.Stop(context.WithoutCancel(ctx)))
		}
	}()
	if err := p.connect(ctx); err != nil {
		return err
	}
	realbroker.Place(p.Cluster, p.hosts)
	none := func(int) string { return "" }
	if err := p.Serve(ctx, startTimeout, p.id, none, func() string { return "" }); err != nil {
		return err
	}
	p.logf("cluster/external: run %s (%s): %d brokers of %s serving at %s; capabilities %v",
		p.id, spec.RunID, brokers, p.inv.path, p.Bootstrap(), p.caps)
	return p.CreateTopics(ctx, spec.Topics...)
}

// connect dials every host, probes it and settles the capabilities.
func (p *Provider) connect(ctx context.Context) error {
	keys, err := p.inv.hostKeys()
	if err != nil {
		return err
	}
	for i := range p.inv.Hosts {
		h := &host{Host: p.inv.Hosts[i], index: i}
		if h.conn, err = p.inv.dial(ctx, i, keys); err != nil {
			return err
		}
		p.all = append(p.all, h)
		if err := p.probe(ctx, h); err != nil {
			return err
		}
		if h.IsBroker() {
			p.hosts = append(p.hosts, h)
		}
	}
	p.caps = capabilities(p.all)
	return nil
}

// probeScript prints the SSH user's uid, whether nft is usable, and the
// harness's address as the host sees it.
const probeScript = `id -u; if command -v nft >/dev/null && nft list tables >/dev/null 2>&1; then echo nft; else echo no-nft; fi; echo "${SSH_CONNECTION%% *}"`

// probe asks h what it can do, and where it and the harness are.
func (p *Provider) probe(ctx context.Context, h *host) error {
	out, err := shell(ctx, h.conn, "", probeScript)
	if err != nil {
		return fmt.Errorf("cluster/external: probing %s: %w", h.Address, err)
	}
	f := strings.Fields(out)
	if len(f) < 3 {
		return fmt.Errorf("cluster/external: probing %s: unexpected answer %q", h.Address, out)
	}
	h.root, h.nft = f[0] == "0", f[1] == "nft"
	if p.client == "" {
		p.client = f[2]
	}
	addr, _, _ := net.SplitHostPort(h.sshAddr())
	ips, err := net.DefaultResolver.LookupHost(ctx, addr)
	if err != nil || len(ips) == 0 {
		return fmt.Errorf("cluster/external: resolving %s: %v", addr, err)
	}
	h.ip = ips[0]
	return nil
}

// capabilities are the faults every host can take: kill and pause need
// the node's process found (find or a unit) and started (start or a
// unit), cuts nft and root.
func capabilities(hosts []*host) []cluster.Capability {
	caps := []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapPartition}
	for _, h := range hosts {
		if !h.nft || !h.root {
			caps = slices.DeleteFunc(caps, func(c cluster.Capability) bool { return c == cluster.CapPartition })
		}
		if h.Unit != "" && !h.root {
			caps = slices.DeleteFunc(caps, func(c cluster.Capability) bool { return c != cluster.CapPartition })
		}
	}
	return caps
}

// Capabilities are what every host offers, as probed by Start; none
// before it.
func (p *Provider) Capabilities() []cluster.Capability { return slices.Clone(p.caps) }

// Stop heals every fault of the run (tables deleted, paused nodes
// resumed, killed nodes started again: the cluster is the user's),
// deletes the topics the run created and closes the connections. It is
// idempotent.
func (p *Provider) Stop(ctx context.Context) error {
	if p.id == "" || p.all == nil {
		p.Close()
		return nil
	}
	errs := []error{p.HealAll(ctx)}
	for _, h := range p.hosts {
		if h.isKilled() {
			errs = append(errs, p.Restart(ctx, h.NodeID()))
		}
	}
	errs = append(errs, p.deleteCreated(ctx))
	p.Close()
	for _, h := range p.all {
		errs = append(errs, h.conn.Close())
	}
	p.all, p.hosts = nil, nil
	realbroker.Place[*host](p.Cluster, nil)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster/external: stopping run %s: %w", p.id, err)
	}
	return nil
}

// Nodes lists the brokers; Up is false while killed or paused.
func (p *Provider) Nodes() []cluster.Node {
	out := make([]cluster.Node, len(p.hosts))
	for i, h := range p.hosts {
		h.mu.Lock()
		out[i] = cluster.Node{ID: h.NodeID(), Addr: h.Broker, Up: !h.killed && !h.paused}
		h.mu.Unlock()
	}
	return out
}

// Bootstrap is the inventory's bootstrap servers.
func (p *Provider) Bootstrap() string { return strings.Join(p.inv.Bootstrap, ",") }

// CreateTopics creates topics on the cluster; Stop deletes them.
func (p *Provider) CreateTopics(ctx context.Context, topics ...cluster.TopicSpec) error {
	err := p.CreateTopicList(ctx, topics)
	p.createdMu.Lock()
	defer p.createdMu.Unlock()
	for _, t := range topics {
		p.created = append(p.created, t.Name) // a half-made topic is deleted too
	}
	return err
}

// deleteCreated deletes the topics the run created.
func (p *Provider) deleteCreated(ctx context.Context) error {
	p.createdMu.Lock()
	topics := p.created
	p.created = nil
	p.createdMu.Unlock()
	if len(topics) == 0 || p.Admin() == nil {
		return nil
	}
	return p.DeleteTopics(ctx, topics...)
}

// Verified says what the hook for e checks (cluster.EffectVerifier).
func (p *Provider) Verified(e cluster.Effect) string {
	switch e {
	case cluster.EffectCut, cluster.EffectHeal, cluster.EffectPacketLoss:
		return tableListed
	case cluster.EffectSlowLink:
		return ""
	}
	return p.VerifiedEffect(string(e))
}

// tableListed is what a cut, a heal or a loss checks.
const tableListed = "the run's nft table listed back on every host over SSH: blocked set and loss as asked, or gone when there are none"

func sshChecks() realbroker.ProcessChecks {
	return realbroker.ProcessChecks{Kill: "process gone from /proc after SIGKILL, over SSH", Stop: "process gone from /proc after the stop, over SSH",
		Pause: "every thread of the process stopped, /proc over SSH", Resume: "no thread of the process stopped, /proc over SSH"}
}

// host is node id's host.
func (p *Provider) host(id int32) (*host, error) {
	i, err := p.Index(id)
	if err != nil {
		return nil, err
	}
	return p.hosts[i], nil
}

func (h *host) isKilled() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.killed
}

// run runs script on h.
func (h *host) run(ctx context.Context, stdin, script string) (string, error) {
	out, err := shell(ctx, h.conn, stdin, script)
	if err != nil {
		return out, fmt.Errorf("host %s (node %d): %w", h.Address, h.NodeID(), err)
	}
	return out, nil
}

// pid is the node's process id, found by the inventory's command or the
// unit's main pid; 0 when it does not run.
func (h *host) pid(ctx context.Context) (int, error) {
	script := h.Find
	if script == "" {
		script = "systemctl show -p MainPID --value " + quote(h.Unit)
	}
	out, err := shell(ctx, h.conn, "", script)
	f := strings.Fields(out)
	if len(f) == 0 {
		return 0, nil // pgrep and the like fail when nothing matches
	}
	if len(f) > 1 {
		return 0, fmt.Errorf("host %s (node %d): find printed %d pids %v, want one", h.Address, h.NodeID(), len(f), f)
	}
	pid, perr := strconv.Atoi(f[0])
	if perr != nil {
		return 0, fmt.Errorf("host %s (node %d): find printed %q, want a pid: %v", h.Address, h.NodeID(), out, errors.Join(perr, err))
	}
	return pid, nil
}

// Probe connects to every host of inv and returns the capabilities they
// all offer, as Start would find them: what a random draw on the cluster
// may ask for, known before any run.
func Probe(ctx context.Context, inv *Inventory) ([]cluster.Capability, error) {
	p := New(inv, nil)
	err := p.connect(ctx)
	for _, h := range p.all {
		h.conn.Close()
	}
	if err != nil {
		return nil, err
	}
	return p.caps, nil
}
