package runner

import (
	"context"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// namedFault is a nemesis fault with names of its own, as the nemesis
// package's are (a partition that records "partition" and "heal").
type namedFault struct{ stubFault }

func (namedFault) Name() string                 { return "partition" }
func (namedFault) Events() (start, stop string) { return "partition", "heal" }

// The schedule records every kind's start and heal by histories'
// convention, the scenario's kind as the op's fault, whatever the nemesis
// fault built for it calls itself; FaultOf reads each back as that kind.
func TestScheduleRecordsTheKindsEvents(t *testing.T) {
	for _, kind := range generators.Kinds() {
		sc := &schedule{}
		m := &meteredFault{Fault: namedFault{}, kind: kind, active: &sc.active}
		sc.meter = []*meteredFault{m}
		sc.steps = nemesis.Schedule{{Duration: time.Millisecond, Fault: m}}
		rec := client.NewMemRecorder()
		if err := sc.run(context.Background(), rec); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		ops := rec.Ops()
		start, stop := histories.FaultEvents(kind, generators.Instantaneous(kind))
		if len(ops) != 2 || ops[0].F != start || ops[1].F != stop {
			t.Fatalf("%s: recorded %+v, want %s then %s", kind, ops, start, stop)
		}
		first := map[bool]histories.Edge{true: histories.EdgeInstant, false: histories.EdgeStart}[generators.Instantaneous(kind)]
		for i, want := range []histories.Edge{first, histories.EdgeStop} {
			if k, e := histories.FaultOf(&ops[i]); k != kind || e != want {
				t.Errorf("%s: op %s read as %q, %v; want %q, %v (value %s)", kind, ops[i].F, k, e, kind, want, ops[i].Value)
			}
		}
	}
}
