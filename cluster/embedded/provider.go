package cluster

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

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Embedded is franz-go's kfake cluster running inside this process: several
// brokers on loopback ports, real transaction markers and idempotent
// deduplication, but one log per partition (no replication), so it can never
// lose an acknowledged write through failover.
type Embedded struct {
	mu      sync.Mutex
	fake    *kfake.Cluster
	admin   *kgo.Client
	logFile *os.File
	nodes   map[int32]*embeddedNode
	addrs   []string // every broker's address at start, for Bootstrap
	// topics the provider created: what Healthy and ShuffleLeaders check
	// (kfake cannot list its topics without a request a fault may hold).
	topics []string
}

// errNotStarted is what every call that needs a running cluster returns
// before Start and after Stop.
var errNotStarted = errors.New("embedded cluster: not started")

type embeddedNode struct {
	addr   string
	port   int
	down   *controlFault // set while killed
	paused *pauseFault   // set while paused
}

// NewEmbedded returns an embedded provider; Start brings it up.
func NewEmbedded() *Embedded { return &Embedded{} }

// Name implements Provider.
func (e *Embedded) Name() string { return "embedded" }

// Capabilities implements Provider.
func (e *Embedded) Capabilities() []Capability {
	return []Capability{CapKill, CapPause, CapLeaderMove, CapRequestFaults}
}

// Fake exposes the kfake cluster for faults no hook describes yet.
func (e *Embedded) Fake() *kfake.Cluster {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fake
}

// Start implements Provider.
func (e *Embedded) Start(ctx context.Context, spec Spec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	spec = spec.WithDefaults()
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
	fake, err := kfake.NewCluster(opts...)
	if err != nil {
		e.closeLog()
		return fmt.Errorf("embedded cluster: %w", err)
	}
	e.fake = fake
	if err := e.afterStart(ctx, spec); err != nil {
		e.stopLocked()
		return err
	}
	return nil
}

func (e *Embedded) afterStart(ctx context.Context, spec Spec) error {
	e.addrs = e.fake.ListenAddrs()
	e.nodes = make(map[int32]*embeddedNode, len(e.addrs))
	for i, a := range e.addrs {
		_, p, err := splitPort(a)
		if err != nil {
			return fmt.Errorf("embedded cluster: broker %d address %q: %w", i, a, err)
		}
		e.nodes[int32(i)] = &embeddedNode{addr: a, port: p}
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

func (e *Embedded) openLog(spec Spec) (io.Writer, error) {
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

func (e *Embedded) closeLog() {
	if e.logFile != nil {
		e.logFile.Close()
		e.logFile = nil
	}
}

// Stop implements Provider.
func (e *Embedded) Stop(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopLocked()
	return nil
}

func (e *Embedded) stopLocked() {
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
	e.closeLog()
}

// Bootstrap implements Provider: every broker the cluster started with, so a
// client can bootstrap while some are down.
func (e *Embedded) Bootstrap() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.addrs, ",")
}

// Nodes implements Provider.
func (e *Embedded) Nodes() []Node {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Node, 0, len(e.nodes))
	for id, n := range e.nodes {
		out = append(out, Node{ID: id, Addr: n.addr, Up: n.down == nil && n.paused == nil})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Leader implements Provider.
func (e *Embedded) Leader(_ context.Context, topic string, partition int32) (int32, error) {
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

// CreateTopics implements Provider.
func (e *Embedded) CreateTopics(ctx context.Context, topics ...TopicSpec) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.createTopics(ctx, topics...)
}

func (e *Embedded) createTopics(ctx context.Context, topics ...TopicSpec) error {
	if e.admin == nil {
		return errNotStarted
	}
	if len(topics) == 0 {
		return nil
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 10000
	for _, t := range topics {
		if err := t.validate(len(e.nodes)); err != nil {
			return fmt.Errorf("embedded cluster: create topics: %w", err)
		}
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

func topicRequest(t TopicSpec) kmsg.CreateTopicsRequestTopic {
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
