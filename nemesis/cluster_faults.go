package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// requestFault is a RequestFaulter fault: installed at Start, removed at
// Stop. It acts on requests at random, so it counts as started once
// installed, not once it hit; its detail says so and carries how many
// requests it hit.
type requestFault struct {
	name, startF, stopF string
	install             func() (cluster.Installed, error)
	verified            string // what installing it checked

	mu   sync.Mutex
	inst cluster.Installed
	hits int
}

func (f *requestFault) Name() string                 { return f.name }
func (f *requestFault) Events() (start, stop string) { return f.startF, f.stopF }

func (f *requestFault) Start(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inst != nil {
		return nil
	}
	inst, err := f.install()
	f.inst = inst
	return err
}

func (f *requestFault) Stop(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inst != nil {
		f.inst.Remove()
		f.hits += f.inst.Hits()
		f.inst = nil
	}
	return nil
}

// Hits counts requests the fault acted on, over all its windows.
func (f *requestFault) Hits() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inst != nil {
		return f.hits + f.inst.Hits()
	}
	return f.hits
}

func (f *requestFault) Detail() any {
	f.mu.Lock()
	installed := f.inst != nil
	f.mu.Unlock()
	return map[string]any{"hits": f.Hits(), "installed": installed, "verified": f.verified}
}

// HitCounter is implemented by faults that can say whether they fired.
type HitCounter interface{ Hits() int }

// Delay holds requests matching sel for d each.
func Delay(h cluster.RequestFaulter, sel cluster.RequestFault, d time.Duration) Fault {
	return &requestFault{name: "delay", startF: "delay", stopF: "delay-heal", verified: verified(h, cluster.EffectRequest),
		install: func() (cluster.Installed, error) { return h.Delay(sel, d) }}
}

// DropConnections closes the connection of requests matching sel before the
// broker handles them.
func DropConnections(h cluster.RequestFaulter, sel cluster.RequestFault) Fault {
	return &requestFault{name: "drop-connections", startF: "drop-connections", stopF: "drop-connections-heal",
		verified: verified(h, cluster.EffectRequest),
		install:  func() (cluster.Installed, error) { return h.DropConnections(sel) }}
}

// LostAck applies matching produce requests and answers them with errCode
// (REQUEST_TIMED_OUT = 7 or NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20).
func LostAck(h cluster.RequestFaulter, sel cluster.RequestFault, errCode int16) Fault {
	return &requestFault{name: "lost-ack", startF: "lost-ack-start", stopF: "lost-ack-stop",
		verified: verified(h, cluster.EffectRequest),
		install:  func() (cluster.Installed, error) { return h.ErrorAfterApply(sel, errCode) }}
}

// nodeFault takes some nodes down with down and brings them back with up.
type nodeFault struct {
	name, startF, stopF string
	pick                func(ctx context.Context) ([]int32, error)
	down, up            func(ctx context.Context, node int32) error
	// checks are what down and up verified (cluster.EffectVerifier),
	// named in the detail once they succeeded.
	checks [2]string

	mu     sync.Mutex
	nodes  []int32 // nodes currently down
	last   []int32
	detail map[string]any
}

func (f *nodeFault) Name() string                 { return f.name }
func (f *nodeFault) Events() (start, stop string) { return f.startF, f.stopF }

func (f *nodeFault) Detail() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := maps.Clone(f.detail)
	if d == nil {
		d = map[string]any{}
	}
	d["nodes"] = f.last
	return d
}

func (f *nodeFault) Start(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.nodes) > 0 {
		return nil
	}
	nodes, err := f.pick(ctx)
	if err != nil {
		return err
	}
	f.last, f.detail = nodes, map[string]any{}
	for _, n := range nodes {
		// Recorded before the attempt: a failed down may be half done,
		// and Stop must try to bring it back.
		f.nodes = append(f.nodes, n)
		if err := f.down(ctx, n); err != nil {
			return fmt.Errorf("node %d: %w", n, err)
		}
	}
	f.detail["verified"] = f.checks[0]
	return nil
}

func (f *nodeFault) Stop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var errs []error
	for _, n := range f.nodes {
		if err := f.up(ctx, n); err != nil {
			errs = append(errs, fmt.Errorf("node %d: %w", n, err))
		}
	}
	if len(f.nodes) > 0 && len(errs) == 0 {
		f.detail["heal-verified"] = f.checks[1]
	}
	f.nodes = nil
	return errors.Join(errs...)
}

// Picker chooses the nodes a node fault acts on.
type Picker func(ctx context.Context) ([]int32, error)

// Nodes picks fixed nodes.
func Nodes(ids ...int32) Picker {
	return func(context.Context) ([]int32, error) { return ids, nil }
}

// LeaderOf picks the current leader of topic/partition.
func LeaderOf(p cluster.Provider, topic string, partition int32) Picker {
	return func(ctx context.Context) ([]int32, error) {
		l, err := p.Leader(ctx, topic, partition)
		return []int32{l}, err
	}
}

// RandomNode picks one node at random among those up.
func RandomNode(p cluster.Provider) Picker {
	return func(context.Context) ([]int32, error) {
		var up []int32
		for _, n := range p.Nodes() {
			if n.Up {
				up = append(up, n.ID)
			}
		}
		if len(up) == 0 {
			return nil, errors.New("no node is up")
		}
		return []int32{up[rand.IntN(len(up))]}, nil
	}
}

// Kill kills the picked nodes and restarts them on Stop.
func Kill(k cluster.NodeKiller, pick Picker) Fault {
	return &nodeFault{name: "kill", startF: "kill", stopF: "restart", pick: pick, down: k.Kill, up: k.Restart,
		checks: [2]string{verified(k, cluster.EffectKill), verified(k, cluster.EffectRestart)}}
}

// Pause freezes the picked nodes and resumes them on Stop.
func Pause(p cluster.NodePauser, pick Picker) Fault {
	return &nodeFault{name: "pause", startF: "pause", stopF: "resume", pick: pick, down: p.Pause, up: p.Resume,
		checks: [2]string{verified(p, cluster.EffectPause), verified(p, cluster.EffectResume)}}
}

// instantFault acts once at Start (a leader election, a crash) and cannot
// be undone, so Stop does nothing.
type instantFault struct {
	name string
	move func(ctx context.Context) (any, error)
	last any
}

func (f *instantFault) Name() string                 { return f.name }
func (f *instantFault) Events() (start, stop string) { return f.name, f.name + "-done" }
func (f *instantFault) Detail() any                  { return f.last }
func (f *instantFault) Stop(context.Context) error   { return nil }

func (f *instantFault) Start(ctx context.Context) error {
	d, err := f.move(ctx)
	f.last = d
	return err
}

// MoveLeader moves topic/partition's leadership to another node that is up.
func MoveLeader(p cluster.Provider, m cluster.LeaderMover, topic string, partition int32) Fault {
	return &instantFault{name: "move-leader", move: func(ctx context.Context) (any, error) {
		from, err := p.Leader(ctx, topic, partition)
		if err != nil {
			return nil, err
		}
		var others []int32
		for _, n := range p.Nodes() {
			if n.Up && n.ID != from {
				others = append(others, n.ID)
			}
		}
		if len(others) == 0 {
			return nil, fmt.Errorf("move leader of %s/%d: no other node is up", topic, partition)
		}
		to := others[rand.IntN(len(others))]
		d := map[string]any{"topic": topic, "partition": partition, "from": from, "to": to}
		if err := m.MoveLeader(ctx, topic, partition, to); err != nil {
			return d, err
		}
		return d, leaderMoved(ctx, p, topic, partition, to, d)
	}}
}

// leaderMoved re-reads the leader after a move and records it: a move
// counts only when the leader is the node asked.
func leaderMoved(ctx context.Context, p cluster.Provider, topic string, partition, to int32, d map[string]any) error {
	after, err := retry(ctx, func(ctx context.Context) (int32, error) { return p.Leader(ctx, topic, partition) })
	d["leader-after"] = after
	if err != nil {
		return fmt.Errorf("move leader of %s/%d: re-reading the leader: %w", topic, partition, err)
	}
	if after != to {
		return fmt.Errorf("move leader of %s/%d to %d: the leader is %d", topic, partition, to, after)
	}
	d["verified"] = "leader re-read: " + strconv.Itoa(int(after))
	return nil
}

// ShuffleLeaders elects a random leader for every partition.
func ShuffleLeaders(m cluster.LeaderMover) Fault {
	return &instantFault{name: "shuffle-leaders", move: func(ctx context.Context) (any, error) {
		if err := m.ShuffleLeaders(ctx); err != nil {
			return nil, err
		}
		return map[string]any{"verified": verified(m, cluster.EffectLeader)}, nil
	}}
}
