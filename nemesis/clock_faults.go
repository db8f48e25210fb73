package nemesis

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// ClockSpec is one clock fault: the picked brokers' wall clocks run Offset
// from real time for the window; with a Strobe period they flip between
// the offset and real time every Strobe instead.
type ClockSpec struct {
	Offset time.Duration
	Strobe time.Duration // 0: hold the offset (bump)
}

// ClockSkew moves the wall clocks of the nodes pick names (target says
// which, for the op) by spec, and returns them to real time at Stop. Each
// move counts only once the provider's probe read the broker's clock at
// its new value (cluster.ClockSkewer): the op's detail lists every reading
// under "clock", and Evidence lists them for results.json.
func ClockSkew(cs cluster.ClockSkewer, tg Targeting, pick Picker, target string, spec ClockSpec) Fault {
	f := &clockFault{cs: cs, spec: spec}
	mech := map[string]any{"offset": spec.Offset.String(), "mode": "bump", "monotonic-clock": "real"}
	if spec.Strobe > 0 {
		mech["mode"], mech["period"] = "strobe", spec.Strobe.String()
	}
	f.targetFault = &targetFault{name: "clock-skew", startF: "clock-skew-start", stopF: "clock-skew-stop", tg: tg,
		pick: pick, target: target, mechanism: mech, apply: f.apply, heal: allNodes(f.realTime),
		effects: [2]cluster.Effect{cluster.EffectClock, cluster.EffectClock}}
	return f
}

// Evidencer is implemented by faults that keep what verified their
// effects (a clock's readings), for results.json.
type Evidencer interface {
	Evidence() []string
}

var _ Evidencer = (*clockFault)(nil)

// clockFault is a targetFault whose moves leave readings: the evidence
// that the clock moved and came back.
type clockFault struct {
	*targetFault
	cs   cluster.ClockSkewer
	spec ClockSpec

	mu         sync.Mutex
	readings   []ClockRead
	stopStrobe context.CancelFunc // nil unless a strobe is running
	strobing   chan struct{}      // closed when it has stopped
}

// ClockRead is one verified (or failed) move of a broker's clock, as the
// op's detail and results.json show it.
type ClockRead struct {
	Phase string `json:"phase"` // skew, strobe or heal
	Node  int32  `json:"node"`
	Want  string `json:"want"`           // the offset asked for
	Read  string `json:"read,omitempty"` // the skew the probe measured
	RTT   string `json:"probe-rtt,omitempty"`
	Error string `json:"error,omitempty"`
}

func (r ClockRead) String() string {
	s := fmt.Sprintf("%s node %d: want %s, read %s (probe rtt %s)", r.Phase, r.Node, r.Want, r.Read, r.RTT)
	if r.Error != "" {
		s += ": " + r.Error
	}
	return s
}

func (f *clockFault) Detail() any {
	d, _ := f.targetFault.Detail().(map[string]any)
	if d == nil {
		d = map[string]any{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	d["clock"] = append([]ClockRead(nil), f.readings...)
	return maps.Clone(d)
}

// Evidence is every reading so far, one line each.
func (f *clockFault) Evidence() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.readings))
	for i, r := range f.readings {
		out[i] = r.String()
	}
	return out
}

// move sets node's clock to offset and notes the reading.
func (f *clockFault) move(ctx context.Context, phase string, node int32, offset time.Duration) error {
	r, err := f.cs.SkewClock(ctx, node, offset)
	if err != nil && phase == "strobe" && ctx.Err() != nil {
		return err // the heal stopped the strobe: no reading to note
	}
	read := ClockRead{Phase: phase, Node: node, Want: offset.String()}
	if r.RTT > 0 {
		read.Read, read.RTT = r.Skew.Round(time.Millisecond).String(), r.RTT.Round(100*time.Microsecond).String()
	}
	if err != nil {
		read.Error = err.Error()
	}
	f.mu.Lock()
	f.readings = append(f.readings, read)
	f.mu.Unlock()
	return err
}

func (f *clockFault) apply(ctx context.Context, nodes []int32) (any, error) {
	done, err := eachNode(func(ctx context.Context, n int32) error {
		return f.move(ctx, "skew", n, f.spec.Offset)
	})(ctx, nodes)
	if err == nil && f.spec.Strobe > 0 {
		f.startStrobe(ctx, nodes)
	}
	return done, err
}

// startStrobe flips the nodes' clocks between real time and the offset
// every period until the heal stops it; it outlives Start's ctx.
func (f *clockFault) startStrobe(ctx context.Context, nodes []int32) {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	f.mu.Lock()
	f.stopStrobe, f.strobing = cancel, done
	f.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTicker(f.spec.Strobe)
		defer t.Stop()
		for skewed := true; ; {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
			}
			skewed = !skewed
			offset := time.Duration(0)
			if skewed {
				offset = f.spec.Offset
			}
			for _, n := range nodes {
				// a failed flip is noted in the readings; the heal still
				// returns every clock to real time and verifies it
				if err := f.move(sctx, "strobe", n, offset); err != nil && sctx.Err() != nil {
					return
				}
			}
		}
	}()
}

// realTime returns node's clock to real time, once any strobe has stopped
// (a flip after the heal would skew it again).
func (f *clockFault) realTime(ctx context.Context, node int32) error {
	f.mu.Lock()
	stop, done := f.stopStrobe, f.strobing
	f.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	return f.move(ctx, "heal", node, 0)
}
