package embedded

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// errDropped is what a control returns to make kfake close the connection.
var errDropped = errors.New("kafkachaos: connection dropped by fault")

// controls is the provider's one kfake control function: it runs the
// installed faults in the order they were installed, and after them the
// answers kfake gets wrong (conform.go). One function rather than one
// control per fault because kfake runs a control keyed to one API before
// every control on all APIs: a correction keyed to OffsetFetch would answer
// ahead of a kill or pause of the node it reached.
type controls struct {
	fake *kfake.Cluster
	mu   sync.Mutex
	list []*controlFault
}

// newControls installs the dispatcher on fake.
func newControls(fake *kfake.Cluster) *controls {
	c := &controls{fake: fake}
	fake.Control(c.dispatch)
	return c
}

// controlFault is one fault in the dispatcher, acting on the requests its
// selector matches until removed.
type controlFault struct {
	fake    *kfake.Cluster
	list    *controls
	sel     cluster.RequestFault
	act     func() (kmsg.Response, error, bool)
	removed atomic.Bool
	hits    atomic.Int64
}

func (f *controlFault) Remove()   { f.removed.Store(true) }
func (f *controlFault) Hits() int { return int(f.hits.Load()) }

// fault is a control fault for sel, not yet installed.
func (c *controls) fault(sel cluster.RequestFault) *controlFault {
	return &controlFault{fake: c.fake, list: c, sel: sel}
}

// install puts f in the dispatcher behind every fault installed before it.
// act returns what the control returns when it handles a request;
// handled=false lets the next fault, then kfake, proceed.
func (f *controlFault) install(act func() (kmsg.Response, error, bool)) {
	f.act = act
	f.list.mu.Lock()
	defer f.list.mu.Unlock()
	f.list.list = append(f.list.list, f)
}

// live drops removed faults and returns the rest, in install order.
func (c *controls) live() []*controlFault {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = slices.DeleteFunc(c.list, func(f *controlFault) bool { return f.removed.Load() })
	return slices.Clone(c.list)
}

// dispatch is the kfake control: every request passes through it. The node
// is read once, first: after a fault sleeps, kfake's current node is
// whichever request ran meanwhile.
func (c *controls) dispatch(req kmsg.Request) (kmsg.Response, error, bool) {
	c.fake.KeepControl()
	node := c.fake.CurrentNode()
	for _, f := range c.live() {
		if f.removed.Load() || !f.matches(req, node) {
			continue
		}
		f.hits.Add(1)
		if resp, err, handled := f.act(); handled {
			return resp, err, true
		}
	}
	return conform(c.fake, req, node)
}

// matches reports whether req, received by node, is selected.
func (f *controlFault) matches(req kmsg.Request, node int32) bool {
	if len(f.sel.Keys) > 0 && !slices.Contains(f.sel.Keys, req.Key()) {
		return false
	}
	if len(f.sel.Nodes) > 0 && !slices.Contains(f.sel.Nodes, node) {
		return false
	}
	if f.sel.Topic != "" && !producesTo(req, f.sel.Topic) {
		return false
	}
	return f.sel.Probability <= 0 || rand.Float64() < f.sel.Probability
}

// producesTo reports whether req is a produce request to topic; a topic
// selector matches nothing else.
func producesTo(req kmsg.Request, topic string) bool {
	p, ok := req.(*kmsg.ProduceRequest)
	if !ok {
		return false
	}
	return slices.ContainsFunc(p.Topics, func(t kmsg.ProduceRequestTopic) bool { return t.Topic == topic })
}
