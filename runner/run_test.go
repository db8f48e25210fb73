package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// smallScenario is a short run: one idempotent producer, one group
// consumer committing after processing, no faults.
func smallScenario() generators.Scenario {
	return generators.Scenario{
		Name: "small", Seed: 1,
		Cluster:   generators.Cluster{Provider: "embedded", Brokers: 3},
		Keys:      generators.SequentialKeys(2, "in", ""),
		Topic:     model.TopicConfig{ReplicationFactor: 3, MinInsyncReplicas: 2},
		Producer:  generators.Producer{ProducerConfig: model.DefaultProducer(), DeliveryTimeout: generators.Duration(10 * time.Second), RequestTimeout: generators.Duration(2 * time.Second)},
		Consumer:  generators.Consumer{ConsumerConfig: model.ConsumerConfig{IsolationLevel: model.ReadCommitted, CommitStrategy: model.CommitAfterProcessing}, SessionTimeout: generators.Duration(time.Second)},
		Workload:  generators.Workload{Producers: 1, Lanes: 2, Consumers: 1, Mode: generators.ModeGroup, Group: "g", Mix: generators.Mix{Send: 1, Poll: 1}, Rate: 200, PollBatch: 50},
		TimeLimit: generators.Duration(2 * time.Second),
	}
}

func TestRunWritesACheckedRunDirectory(t *testing.T) {
	root := t.TempDir()
	s := smallScenario()
	s.Nemesis = []generators.Fault{{Kind: generators.KindLeaderShuffle, Start: generators.Duration(500 * time.Millisecond),
		Params: generators.FaultParams{Every: generators.Duration(500 * time.Millisecond)}, Duration: generators.Duration(time.Second)}}
	out, err := Run(context.Background(), s, Options{RunsDir: root, TestName: t.Name(), Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dir %s held=%v observed=%s anomalies=%v stats=%+v", out.Dir, out.Held, out.Observed.EndToEnd, out.Result.Counts, out.Stats)
	for _, f := range []string{"scenario.json", "history.jsonl", "results.json", "index.html"} {
		if _, err := os.Stat(filepath.Join(out.Dir, f)); err != nil {
			t.Errorf("run directory lacks %s: %v", f, err)
		}
	}
	if !out.Held {
		t.Errorf("a correct configuration without harmful faults did not hold: %v", out.Result.Counts)
	}
	if out.Stats.OpsByType["send ok"] == 0 || out.Stats.OpsByType["poll ok"] == 0 {
		t.Errorf("no sends or polls completed: %v", out.Stats.OpsByType)
	}
	if out.Stats.FaultsFired < 2 {
		t.Errorf("leader shuffles fired %d times, want >= 2", out.Stats.FaultsFired)
	}
}
