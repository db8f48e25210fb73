package sim

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// basePort is the first broker's port on the virtual network; broker n
// listens on basePort+n.
const basePort = 9092

// cluster is the kfake cluster of a run and the one control every request
// passes through, where the request faults act.
type cluster struct {
	fake    *kfake.Cluster
	vnet    *kfake.VirtualNetwork
	brokers int
	topics  []string   // every topic, input first
	keys    int        // partitions of each topic
	rng     *rand.Rand // leader placement, at quiet points
	seed    uint64     // request-fault coin flips (flip)

	mu      sync.Mutex
	seen    map[uint64]int // per request content, how often a coin was flipped for it
	down    map[int32]bool
	faults  []*requestFault
	epochs  [][]epochStart // per partition (topic index*keys+partition), the epochs the harness saw begin
	leaders []int32        // per partition, as epochs, its leader after the last move
}

// requestFault acts on the requests it selects while installed: in the
// cluster's control (act), or as its client writes them (delay).
type requestFault struct {
	keys        []int16
	probability float64
	act         func() (kmsg.Response, error, bool)
	delay       time.Duration
	hits        int
}

var errDropped = errors.New("sim: connection dropped by a fault")

func startCluster(brokers, keys int, topics []string, seed int64, session time.Duration) (*cluster, error) {
	c := &cluster{vnet: new(kfake.VirtualNetwork), brokers: brokers, topics: topics, keys: keys, seed: uint64(seed),
		rng: rand.New(rand.NewPCG(uint64(seed), 0x636c7573)), down: map[int32]bool{}, seen: map[uint64]int{}}
	ports := make([]int, brokers)
	for i := range ports {
		ports[i] = basePort + i
	}
	fake, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.Ports(ports...), kfake.ListenFn(c.vnet.Listen),
		kfake.SeedTopics(int32(keys), topics...), kfake.GroupMinSessionTimeout(100*time.Millisecond),
		// KIP-848 groups: the session is the broker's to set
		kfake.BrokerConfigs(map[string]string{
			"group.consumer.session.timeout.ms":    strconv.Itoa(int(session / time.Millisecond)),
			"group.consumer.heartbeat.interval.ms": strconv.Itoa(int(session / 4 / time.Millisecond)),
		}))
	if err != nil {
		return nil, fmt.Errorf("sim: starting kfake: %w", err)
	}
	c.fake = fake
	fake.Control(c.dispatch)
	if err := c.placeLeaders(); err != nil {
		fake.Close()
		return nil, err
	}
	return c, nil
}

// seeds are the bootstrap addresses of every broker.
func (c *cluster) seeds() []string {
	s := make([]string, c.brokers)
	for i := range s {
		s[i] = "localhost:" + strconv.Itoa(basePort+i)
	}
	return s
}

// placeLeaders gives every partition a leader drawn from the seed among
// the live brokers, replacing kfake's own pick (math/rand's global
// source, shared by the process).
func (c *cluster) placeLeaders() error {
	c.mu.Lock()
	var live []int32
	for n := range int32(c.brokers) {
		if !c.down[n] {
			live = append(live, n)
		}
	}
	picks := make([]int32, c.keys*len(c.topics))
	for i := range picks {
		picks[i] = live[c.rng.IntN(len(live))]
	}
	c.mu.Unlock()
	for i, n := range picks {
		t, p := c.topics[i/c.keys], int32(i%c.keys)
		if err := c.fake.MoveTopicPartition(t, p, n); err != nil {
			return fmt.Errorf("sim: moving %s partition %d to node %d: %w", t, p, n, err)
		}
	}
	c.noteEpochs()
	return nil
}

// dispatch is the kfake control every request passes: a request to a
// killed node loses its connection, and each installed fault that
// selects the request may act on it, in install order.
func (c *cluster) dispatch(req kmsg.Request) (kmsg.Response, error, bool) {
	c.fake.KeepControl()
	node := c.fake.CurrentNode()
	c.mu.Lock()
	if c.down[node] {
		c.mu.Unlock()
		return nil, errDropped, true
	}
	if req, ok := req.(*kmsg.OffsetForLeaderEpochRequest); ok {
		c.mu.Unlock()
		if resp, ok := c.answerEpochs(req, node); ok {
			return resp, nil, true
		}
		c.mu.Lock()
	}
	var acts []func() (kmsg.Response, error, bool)
	for _, f := range c.faults {
		if f.act != nil && f.hits1(c, req.Key(), req.AppendTo(nil)) {
			acts = append(acts, f.act)
		}
	}
	c.mu.Unlock()
	for _, act := range acts {
		if resp, err, handled := act(); handled {
			return resp, err, true
		}
	}
	return nil, nil, false
}

// hits1 reports whether f selects a request of key whose body is body,
// flipping its coin; the caller holds c.mu.
func (f *requestFault) hits1(c *cluster, key int16, body []byte) bool {
	if !f.selects(key) || !c.flipLocked(f.probability, body) {
		return false
	}
	f.hits++
	return true
}

// flip is true with probability p (0: always), a function of the seed,
// the request's content and how often a coin was flipped for that content
// before: not of the order in which requests of different clients reach
// the cluster at one instant, which is the scheduler's.
func (c *cluster) flip(p float64, body []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flipLocked(p, body)
}

func (c *cluster) flipLocked(p float64, body []byte) bool {
	if p <= 0 {
		return true
	}
	h := fnv.New64a()
	h.Write(body)
	k := h.Sum64()
	c.seen[k]++
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], k)
	binary.LittleEndian.PutUint64(b[8:], uint64(c.seen[k]))
	binary.LittleEndian.PutUint64(b[16:], c.seed)
	h.Reset()
	h.Write(b[:])
	return float64(h.Sum64()%1_000_000) < p*1_000_000
}

// writeDelay is how long the delay faults hold a request of key before
// it reaches the cluster. Requests are held on the client's side of the
// connection: kfake's SleepControl, with several sleeps at once, has its
// control goroutines wait on a mutex, which stops the bubble's clock.
func (c *cluster) writeDelay(key int16, body []byte) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var d time.Duration
	for _, f := range c.faults {
		if f.delay > 0 && f.hits1(c, key, body) {
			d += f.delay
		}
	}
	return d
}

func (f *requestFault) selects(key int16) bool {
	for _, k := range f.keys {
		if k == key {
			return true
		}
	}
	return len(f.keys) == 0
}

func (c *cluster) install(f *requestFault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = append(c.faults, f)
}

// remove uninstalls f and says how often it hit; removing twice is safe.
func (c *cluster) remove(f *requestFault) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, g := range c.faults {
		if g == f {
			c.faults = append(c.faults[:i], c.faults[i+1:]...)
			break
		}
	}
	return f.hits
}

// kill takes node down: its listener closes and requests still arriving
// over open connections lose them.
func (c *cluster) kill(node int32) error {
	c.mu.Lock()
	if c.down[node] {
		c.mu.Unlock()
		return nil
	}
	c.down[node] = true
	c.mu.Unlock()
	if err := c.fake.RemoveNode(node); err != nil {
		return fmt.Errorf("sim: kill node %d: %w", node, err)
	}
	return c.placeLeaders()
}

// restart brings a killed node back on its port.
func (c *cluster) restart(node int32) error {
	c.mu.Lock()
	if !c.down[node] {
		c.mu.Unlock()
		return nil
	}
	delete(c.down, node)
	c.mu.Unlock()
	if _, _, err := c.fake.AddNode(node, basePort+int(node)); err != nil {
		return fmt.Errorf("sim: restart node %d: %w", node, err)
	}
	return c.placeLeaders()
}

// link is one client's connections: severing it closes them all and
// refuses new ones, which is how a client crashes here (no goodbye
// reaches the cluster).
type link struct {
	c       *cluster
	latency time.Duration // each write's delay, the client's own
	mu      sync.Mutex
	cut     bool
	conns   []net.Conn
}

var errSevered = errors.New("sim: client crashed")

// deadDial is how long a crashed client's dial takes to fail.
const deadDial = time.Second

func (l *link) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		// A crashed client's dial goes nowhere until it gives up:
		// failing at once would let its fetch loop spin at one
		// virtual instant, and the bubble's clock would never move.
		l.mu.Unlock()
		t := time.NewTimer(deadDial)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		l.mu.Lock()
		return nil, errSevered
	}
	conn, err := l.c.vnet.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	l.conns = append(l.conns, conn)
	return slowConn{Conn: conn, latency: l.latency, c: l.c}, nil
}

// slowConn delays every write by its client's latency: requests of
// different clients then never reach the cluster at one virtual instant,
// where their order would be the scheduler's.
type slowConn struct {
	net.Conn
	latency time.Duration
	c       *cluster
}

// Write sends one request (kgo writes each whole): its size, then its
// api key, which the delay faults select by.
func (c slowConn) Write(b []byte) (int, error) {
	d := c.latency
	if len(b) >= 6 {
		d += c.c.writeDelay(int16(binary.BigEndian.Uint16(b[4:6])), b)
	}
	time.Sleep(d)
	return c.Conn.Write(b)
}

func (l *link) sever() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = true
	for _, c := range l.conns {
		c.Close()
	}
	l.conns = nil
}
