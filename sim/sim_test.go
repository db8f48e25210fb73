package sim

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// TestSimChild is the entry of a child process Spawn runs.
func TestSimChild(t *testing.T) { Child(t) }

func spawn(t *testing.T, s generators.Scenario) (Played, Verdict) {
	t.Helper()
	p, err := Spawn(context.Background(), os.Args[0], filepath.Join(t.TempDir(), "draw"), s)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Check(s, p)
	if err != nil {
		t.Fatal(err)
	}
	return p, v
}

// weak is a retrying producer without idempotence under lost acks: the
// retries write twice, which the checkers must find.
func weak(seed int64) generators.Scenario {
	s := generators.Baseline("sim-weak", "sim", 2*time.Second)
	s.Seed = seed
	s.Producer.EnableIdempotence, s.Producer.Acks = false, model.AcksLeader
	s.Workload.Consumers = 1
	s.Nemesis = []generators.Fault{{Kind: generators.KindLostAck, Start: generators.Duration(200 * time.Millisecond),
		Duration: generators.Duration(time.Second), Params: generators.FaultParams{Probability: 0.5}}}
	return s
}

func TestReplaysSeedExactly(t *testing.T) {
	// Saved seeds that replay exactly; see the package doc for what may not.
	for _, s := range []generators.Scenario{generators.RandomIn(Space(), 1), generators.RandomIn(Space(), 7)} {
		a, _ := spawn(t, s)
		b, _ := spawn(t, s)
		if len(a.Log) == 0 {
			t.Fatalf("%s: empty event log", s.Name)
		}
		if d := a.Log.Diff(b.Log); d != "" {
			t.Errorf("%s: replay diverged at %s", s.Name, d)
		}
	}
}

func TestPlantedDuplicatesFound(t *testing.T) {
	_, v := spawn(t, weak(3))
	if v.Result.Counts["duplicate"] == 0 || v.Observed.Producer.String() == model.ExactlyOnce.String() {
		t.Fatalf("lost acks with a non-idempotent retrying producer: want duplicates, got %v (%s)", v.Result.Counts, v.Observed.Producer)
	}
}

func TestIdempotentProducerHoldsUnderLostAcks(t *testing.T) {
	s := weak(3)
	s.Producer.ProducerConfig = model.DefaultProducer()
	_, v := spawn(t, s)
	if !v.Held || v.Result.Counts["duplicate"] != 0 {
		t.Fatalf("idempotent producer: want no duplicate and the model's guarantee held, got %v, held %v", v.Result.Counts, v.Held)
	}
}
