package explore

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/runner"
)

func TestPlantTurnsIdempotenceOffWhereItCan(t *testing.T) {
	s, err := Draw(GenSpace("embedded"), SpaceSafe, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.Producer.TransactionalID = ""
	s.Producer.EnableIdempotence = true
	if got := PlantNonIdempotentRetries.apply(s); got.Producer.Idempotent() || got.Producer.Retries == 0 {
		t.Errorf("planted producer idempotent %v, retries %d: want a retrying non-idempotent one", got.Producer.Idempotent(), got.Producer.Retries)
	}
	if !s.Producer.Idempotent() {
		t.Error("apply changed the drawn scenario")
	}
	s.Producer.TransactionalID = "t"
	if got := PlantNonIdempotentRetries.apply(s); !got.Producer.Idempotent() {
		t.Error("a transactional producer lost its idempotence")
	}
	if got := PlantNone.apply(s); got.Producer != s.Producer {
		t.Error("no plant changed the producer")
	}
	if _, err := ParsePlant("slow-disk"); err == nil {
		t.Error("an unknown plant was accepted")
	}
}

// The pinned lost-ack regression made safe (idempotence on) holds as drawn
// and violates the drawn expectation with the plant: the judge runs the
// plant but claims what the model expects of the safe draw.
func TestPlantedJudgeClaimsTheDrawnExpectation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scenarios on the embedded cluster")
	}
	r, err := LoadRegression(filepath.Join("..", "testdata", "regressions", "retries-lost-ack-duplicate.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := r.Scenario
	// safe as drawn: idempotent, no unclean election; the consumer commits
	// after processing, so end to end at-least-once allows the duplicate and
	// only the producer hop breaks
	s.Producer.EnableIdempotence, s.Topic.UncleanLeaderElection = true, false
	opts := runner.Options{RunsDir: t.TempDir(), TestName: t.Name()}
	var v Verdict
	for attempt := range r.Attempts {
		v, err = PlantedJudge(PlantNonIdempotentRetries, opts)(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if v.Violated {
			break
		}
		t.Logf("attempt %d: no violation (%s)", attempt+1, v.Observed)
	}
	want := []string{"producer hop: expected exactly-once, observed at-least-once"}
	if !v.Violated || v.Expected != "at-least-once" || !slices.Equal(v.Breaks, want) {
		t.Fatalf("planted run: violated %v, expected %s, observed %s %v, breaks %q: want the producer hop broken as %q",
			v.Violated, v.Expected, v.Observed, v.Anomalies, v.Breaks, want)
	}
	held, err := PlantedJudge(PlantNone, opts)(context.Background(), s)
	if err != nil || held.Violated {
		t.Fatalf("the safe draw without the plant: %+v, %v", held, err)
	}
}
