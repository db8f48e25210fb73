package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Provider is franz-go's kfake cluster running inside this process: several
// brokers on loopback ports, real transaction markers and idempotent
// deduplication, but one log per partition (no replication), so it can never
// lose an acknowledged write through failover.
type Provider struct {
	mu      sync.Mutex
	fake    *kfake.Cluster
	admin   *kgo.Client
	logFile *os.File
	// controls runs the request faults in order, then corrects
	// kfake's answers where they differ from Kafka's.
	controls *controls
	nodes    map[int32]*brokerNode
	addrs    []string // every broker's address at start, for Bootstrap
	// topics the provider created: what Healthy and ShuffleLeaders check
	// (kfake cannot list its topics without a request a fault may hold).
	topics []string
	// proxies front the brokers when the run's Spec is Proxied.
	proxies *proxies
	// ports are the brokers' own ports (behind the proxies if any; see
	// ports.go).
	ports *portLease
}

// errNotStarted is what every call that needs a running cluster returns
// before Start and after Stop.
var errNotStarted = errors.New("embedded cluster: not started")

type brokerNode struct {
	addr   string
	port   int
	down   *controlFault // set while killed
	paused *pauseFault   // set while paused
}

// New returns an embedded provider; Start brings it up.
func New() *Provider { return &Provider{} }

// Name implements cluster.Provider.
func (e *Provider) Name() string { return "embedded" }

// Capabilities implements cluster.Provider.
func (e *Provider) Capabilities() []cluster.Capability {
	return []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapLeaderMove, cluster.CapRequestFaults, cluster.CapProxy}
}

// Fake exposes the kfake cluster for faults no hook describes yet.
func (e *Provider) Fake() *kfake.Cluster {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fake
}

// Start implements cluster.Provider.
func (e *Provider) Start(ctx context.Context, spec cluster.Spec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	spec = spec.WithDefaults()
	if spec.ReplicationProxied {
		return errors.New("embedded cluster: no replication proxies: kfake's brokers share one in-memory log and send each other nothing to delay")
	}
	if spec.DynamicQuorum {
		return errors.New("embedded cluster: no dynamic controller quorum: kfake has no KRaft voters to format or change")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fake != nil {
		return errors.New("embedded cluster: already started")
	}
	logw, err := e.openLog(spec)
	if err != nil {
		return err
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(spec.Brokers),
		kfake.ClusterID("kafkachaos-" + spec.RunID),
		// Clients in tests use short session timeouts so that a
		// crashed group member is noticed within a run.
		kfake.GroupMinSessionTimeout(100 * time.Millisecond),
		kfake.WithLogger(kfake.BasicLogger(logw, kfake.LogLevelWarn)),
	}
	if len(spec.BrokerConfigs) > 0 {
		opts = append(opts, kfake.BrokerConfigs(spec.BrokerConfigs))
	}
	if e.ports, err = leasePorts(spec.Brokers); err != nil {
		e.stopLocked()
		return err
	}
	if spec.Proxied {
		// the brokers listen on the leased ports behind proxies
		e.proxies = newProxies(e.ports.ports)
		opts = append(opts, kfake.ListenFn(e.proxies.listen))
	} else {
		opts = append(opts, kfake.Ports(e.ports.ports...))
	}
	fake, err := kfake.NewCluster(opts...)
	if err != nil {
		e.stopLocked()
		return fmt.Errorf("embedded cluster: %w", err)
	}
	e.fake, e.controls = fake, newControls(fake)
	if err := e.afterStart(ctx, spec); err != nil {
		e.stopLocked()
		return err
	}
	return nil
}

func (e *Provider) afterStart(ctx context.Context, spec cluster.Spec) error {
	e.addrs = e.fake.ListenAddrs()
	e.nodes = make(map[int32]*brokerNode, len(e.addrs))
	for i, a := range e.addrs {
		_, p, err := splitPort(a)
		if err != nil {
			return fmt.Errorf("embedded cluster: broker %d address %q: %w", i, a, err)
		}
		e.nodes[int32(i)] = &brokerNode{addr: a, port: p}
	}
	admin, err := kgo.NewClient(kgo.SeedBrokers(e.addrs...))
	if err != nil {
		return fmt.Errorf("embedded cluster: admin client: %w", err)
	}
	e.admin = admin
	if err := admin.Ping(ctx); err != nil {
		return fmt.Errorf("embedded cluster: not serving: %w", err)
	}
	return e.createTopics(ctx, spec.Topics...)
}

func splitPort(addr string) (string, int, error) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return "", 0, errors.New("no port")
	}
	p, err := strconv.Atoi(addr[i+1:])
	return addr[:i], p, err
}

func (e *Provider) openLog(spec cluster.Spec) (io.Writer, error) {
	switch {
	case spec.Log != nil:
		return spec.Log, nil
	case spec.RunDir != "":
		f, err := os.Create(filepath.Join(spec.RunDir, "broker-embedded.log"))
		if err != nil {
			return nil, fmt.Errorf("embedded cluster: broker log: %w", err)
		}
		e.logFile = f
		return f, nil
	}
	return io.Discard, nil
}

func (e *Provider) closeLog() {
	if e.logFile != nil {
		e.logFile.Close()
		e.logFile = nil
	}
}

// Stop implements cluster.Provider.
func (e *Provider) Stop(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopLocked()
	return nil
}

func (e *Provider) stopLocked() {
	if e.admin != nil {
		e.admin.Close()
		e.admin = nil
	}
	if e.fake != nil {
		e.fake.Close()
		// A closed kfake cluster blocks admin calls forever; nil makes
		// every later hook fail with "not started" instead.
		e.fake = nil
	}
	if e.proxies != nil {
		e.proxies.set.Close()
		e.proxies = nil
	}
	e.ports.release()
	e.ports = nil
	e.closeLog()
}

// Bootstrap implements cluster.Provider: every broker the cluster started with, so a
// client can bootstrap while some are down.
func (e *Provider) Bootstrap() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.addrs, ",")
}

// Nodes implements cluster.Provider.
func (e *Provider) Nodes() []cluster.Node {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]cluster.Node, 0, len(e.nodes))
	for id, n := range e.nodes {
		out = append(out, cluster.Node{ID: id, Addr: n.addr, Up: n.down == nil && n.paused == nil})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Leader implements cluster.Provider.
func (e *Provider) Leader(_ context.Context, topic string, partition int32) (int32, error) {
	fake := e.Fake()
	if fake == nil {
		return -1, errNotStarted
	}
	n := fake.LeaderFor(topic, partition)
	if n < 0 {
		return -1, fmt.Errorf("embedded cluster: %s/%d: no such partition", topic, partition)
	}
	return n, nil
}

// CreateTopics implements cluster.Provider.
func (e *Provider) CreateTopics(ctx context.Context, topics ...cluster.TopicSpec) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.createTopics(ctx, topics...)
}

func (e *Provider) createTopics(ctx context.Context, topics ...cluster.TopicSpec) error {
	if e.admin == nil {
		return errNotStarted
	}
	if len(topics) == 0 {
		return nil
	}
	if err := (cluster.Spec{Brokers: len(e.nodes), Topics: topics}).Validate(); err != nil {
		return fmt.Errorf("embedded cluster: create topics: %w", err)
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 10000
	for _, t := range topics {
		req.Topics = append(req.Topics, topicRequest(t))
	}
	resp, err := req.RequestWith(ctx, e.admin)
	if err != nil {
		return fmt.Errorf("embedded cluster: create topics: %w", err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return fmt.Errorf("embedded cluster: create topic %q: %w", t.Topic, err)
		}
		e.topics = append(e.topics, t.Topic)
	}
	return nil
}

func topicRequest(t cluster.TopicSpec) kmsg.CreateTopicsRequestTopic {
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic = t.Name
	rt.NumPartitions = t.Partitions
	rt.ReplicationFactor = t.ReplicationFactor
	configs := make(map[string]string, len(t.Configs)+1)
	for k, v := range t.Configs {
		configs[k] = v
	}
	if t.MinInsyncReplicas > 0 {
		configs["min.insync.replicas"] = strconv.Itoa(t.MinInsyncReplicas)
	}
	for k, v := range configs {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, kmsg.StringPtr(v)
		rt.Configs = append(rt.Configs, c)
	}
	return rt
}
