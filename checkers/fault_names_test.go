package checkers

import (
	"reflect"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

// A history whose faults are recorded under the older names (kill/restart
// without a health check, x/x-heal, partition/heal, an instantaneous x with
// x-done) is judged exactly as the same history under the convention's
// names: the same fault windows, stalls, heal and recovery.
func TestOldAndNewFaultNamesGiveTheSameLiveness(t *testing.T) {
	type event struct {
		at         int64
		old, value string
		kind       string
		edge       histories.Edge
	}
	events := []event{
		{1000, "kill", `{"nodes":[2]}`, "kill", histories.EdgeStart},
		{2000, "restart", `{"nodes":[2]}`, "kill", histories.EdgeStop},
		{3000, "delay", `{"fault":"delay"}`, "delay", histories.EdgeStart},
		{3500, "crash-consumer", `{"fault":"crash-consumer"}`, "crash-consumer", histories.EdgeInstant},
		{4000, "delay-heal", `{"fault":"delay"}`, "delay", histories.EdgeStop},
		{5000, "partition", `{"fault":"isolate-leader"}`, "isolate-leader", histories.EdgeStart},
		{7000, "heal", `{"fault":"isolate-leader"}`, "isolate-leader", histories.EdgeStop},
		{9000, "crash-consumer-done", `{"fault":"crash-consumer"}`, "crash-consumer", histories.EdgeStop},
	}
	build := func(old bool) *hist {
		h := &hist{}
		h.sends(ok, 10, 0, 0, 500)
		next := int64(0)
		for _, e := range events {
			h.sends(ok, 100+next, 2+next, e.at-100)
			next++
			f := e.old
			if !old {
				f = e.kind
				switch e.edge {
				case histories.EdgeStart:
					f = histories.FaultStart(e.kind)
				case histories.EdgeStop:
					f = histories.FaultStop(e.kind)
				}
			}
			h.nem(e.at, f, `{"fault":"`+e.kind+`"}`)
			if old {
				h.last().Value = []byte(e.value)
			}
		}
		h.sends(ok, 200, 2+next, 9500)
		return h
	}
	oldL, newL := liveness(t, build(true)), liveness(t, build(false))
	if len(newL.Faults) != 3 || newL.LastHealNs == nil || *newL.LastHealNs != 7000*ms {
		t.Fatalf("new names: faults %+v, last heal %v; want kill, delay and isolate-leader, healed at 7000 ms", newL.Faults, newL.LastHealNs)
	}
	if !reflect.DeepEqual(oldL, newL) {
		t.Fatalf("old names judged otherwise:\n old %+v\n new %+v", oldL, newL)
	}
}
