package explore

import (
	"slices"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

// Every draw of the txn space runs txn queues, is valid, and on real
// brokers aims its kills and pauses at the coordinator, the leader or one
// broker; over many draws each delay and the coordinator target appear,
// and a third of the draws or more hold requests, a tenth or more past
// the producer's delivery timeout.
func TestTxnSpaceDrawsJepsensRecipe(t *testing.T) {
	gs := SpaceTxn.Shape(GenSpace("local"))
	if gs.MinTime < 20*time.Second || SpaceSafe.Shape(GenSpace("local")).MaxTime != GenSpace("local").MaxTime {
		t.Fatalf("txn space draws %v-%v; the safe space's is reshaped too", gs.MinTime, gs.MaxTime)
	}
	delays, coordinator, held, late := map[time.Duration]bool{}, 0, 0, 0
	for i := range 60 {
		s, err := Draw(gs, SpaceTxn, 7, i)
		if err != nil {
			t.Fatalf("draw %d: %v", i, err)
		}
		if s.Workload.TxnQueues == 0 || s.TimeLimit.D() < 20*time.Second {
			t.Fatalf("draw %d has %d txn queues and runs %v", i, s.Workload.TxnQueues, s.TimeLimit)
		}
		delays[s.Workload.IntraTxnDelay.D()] = true
		if i := slices.IndexFunc(s.Nemesis, func(f generators.Fault) bool { return f.Kind == generators.KindDelayedRequests }); i >= 0 {
			held++
			if s.Nemesis[i].Params.Delay > s.Producer.DeliveryTimeout {
				late++
			}
		}
		for _, f := range s.Nemesis {
			if f.Kind != generators.KindKill && f.Kind != generators.KindPause || len(f.Params.Nodes) > 0 {
				continue
			}
			switch f.Params.Target {
			case generators.TargetTxnCoordinator:
				coordinator++
			case "leader", "one":
			default:
				t.Errorf("draw %d: %s aimed at %q", i, f.Kind, f.Params.Target)
			}
		}
	}
	if len(delays) != len(intraTxnDelays()) || coordinator == 0 {
		t.Errorf("60 draws: delays %v, %d faults on the coordinator; want every delay and some", delays, coordinator)
	}
	t.Logf("60 draws: %d hold requests, %d past the delivery timeout", held, late)
	if held < 20 || late < 6 {
		t.Errorf("60 draws: %d hold requests, %d past the delivery timeout; want at least 20 and 6", held, late)
	}
	again, _ := Draw(gs, SpaceTxn, 7, 3)
	first, _ := Draw(gs, SpaceTxn, 7, 3)
	if again.Workload.IntraTxnDelay != first.Workload.IntraTxnDelay || len(again.Nemesis) != len(first.Nemesis) {
		t.Error("the same seed and index drew two scenarios")
	}
}
