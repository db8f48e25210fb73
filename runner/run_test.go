package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
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

func TestRunRefusesFaultsTheProviderCannotInject(t *testing.T) {
	s := smallScenario()
	s.Nemesis = []generators.Fault{{Kind: generators.KindPartition, Start: 0, Duration: generators.Duration(time.Second)}}
	_, err := Run(context.Background(), s, Options{RunsDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `capability "partition"`) {
		t.Fatalf("err = %v, want the missing capability named", err)
	}
}

func TestRunRemovesAHeldRunUnlessKept(t *testing.T) {
	root := t.TempDir()
	s := smallScenario()
	s.TimeLimit = generators.Duration(500 * time.Millisecond)
	out, err := Run(context.Background(), s, Options{RunsDir: root})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Held || out.Kept {
		t.Fatalf("held %v kept %v, want held and not kept", out.Held, out.Kept)
	}
	if _, err := os.Stat(out.Dir); !os.IsNotExist(err) {
		t.Fatalf("run directory still there: %v", err)
	}
}

func TestRunInterruptedHealsAndKeepsTheHistory(t *testing.T) {
	root := t.TempDir()
	s := smallScenario()
	s.TimeLimit = generators.Duration(30 * time.Second)
	s.Nemesis = []generators.Fault{{Kind: generators.KindLostAck, Start: 0, Duration: s.TimeLimit}}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := Run(ctx, s, Options{RunsDir: root})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want an interrupted run", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("interrupted run took %s to stop", time.Since(start))
	}
	if !out.Kept {
		t.Fatal("interrupted run was not kept")
	}
	ops, warns, err := histories.ReadFile(filepath.Join(out.Dir, "history.jsonl"), histories.FormatJSONL)
	if err != nil {
		t.Fatalf("history of the interrupted run: %v", err)
	}
	var started, healed bool
	for _, op := range ops {
		started = started || op.F == "lost-ack-start"
		healed = healed || op.F == "lost-ack-stop"
	}
	if !started || !healed {
		t.Fatalf("lost-ack started %v, healed %v; want both (warnings %v)", started, healed, warns)
	}
}

func TestProvidersByName(t *testing.T) {
	provs := DefaultProviders()
	for _, name := range []string{"embedded", "local"} {
		p, err := provs.New(name)
		if err != nil || p.Name() != name {
			t.Errorf("%s: provider %v, err %v", name, p, err)
		}
	}
	if _, err := provs.New("cloud"); err == nil || !strings.Contains(err.Error(), `"cloud" is not registered`) {
		t.Errorf("unknown provider: err = %v", err)
	}
}
