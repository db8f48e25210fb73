package kafkachaos_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// groupProtocolCrashScenario is consumerProtocolScenario's two KIP-848
// members committing after processing, one of them crashed before its
// commit every 2 s from a fifth of the run: a member that processed
// records and did not commit them, whose successor must read them again.
func groupProtocolCrashScenario(s generators.Scenario) generators.Scenario {
	s = consumerProtocolScenario(s)
	s.Nemesis = []generators.Fault{{Kind: generators.KindCrashConsumer, Start: s.TimeLimit / 5, Duration: s.TimeLimit * 6 / 10,
		Params: generators.FaultParams{Point: generators.CrashBeforeCommit, Every: d(2 * time.Second)}}}
	return s
}

// checkFencedCrashes checks a run of groupProtocolCrashScenario: it worked
// and held at least once, and every crashed member was fenced at its
// coordinator (its crash op says so), so none closed politely.
func checkFencedCrashes(t *testing.T, a attempt) {
	t.Helper()
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	if !a.out.Held {
		t.Errorf("observed %s is weaker than expected %s: %s", a.out.Observed.EndToEnd, a.out.Expected.EndToEnd, a)
	}
	ops, _, err := histories.ReadFile(filepath.Join(a.out.Dir, report.HistoryFile), histories.FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	crashes := 0
	for _, op := range ops {
		if op.F != histories.FCrash || op.Group == "" {
			continue
		}
		crashes++
		var v struct {
			Fenced     bool   `json:"fenced"`
			FenceError string `json:"fence-error"`
		}
		if err := json.Unmarshal(op.Value, &v); err != nil || !v.Fenced {
			t.Errorf("crash op %d of process %d: %s (%v): want fenced", op.Index, op.Process, op.Value, err)
		}
	}
	if crashes == 0 {
		t.Errorf("no group member crashed: %s", a)
	}
	t.Logf("GROUP PROTOCOL CRASH: %d members crashed, fenced; %s", crashes, a)
}

// TestChaosGroupProtocolConsumerCrash: crash-consumer under KIP-848 on the
// embedded cluster (kfake serves ConsumerGroupHeartbeat and
// ConsumerGroupDescribe): each crashed member leaves by the heartbeat the
// harness sends for its member id. On real brokers the same run is
// TestChaosLocalGroupProtocolConsumerCrash.
func TestChaosGroupProtocolConsumerCrash(t *testing.T) {
	if *flagCluster != "embedded" {
		t.Skip("on real brokers this run is TestChaosLocalGroupProtocolConsumerCrash")
	}
	parallelOnEmbedded(t)
	s := groupProtocolCrashScenario(base("group-protocol-consumer-crash", 10*time.Second))
	out, err := runner.Run(t.Context(), s, runner.Options{RunsDir: *flagRuns, TestName: t.Name(), Keep: true, Replay: replay})
	checkFencedCrashes(t, attempt{out, err})
}

// TestChaosLocalGroupProtocolConsumerCrash (full profile): the same crashes
// on real brokers, where the leave heartbeat goes to Kafka's own group
// coordinator.
func TestChaosLocalGroupProtocolConsumerCrash(t *testing.T) {
	p := requireFull(t, "local", "full profile only (make chaos-local): CI's short profile has no time for it")
	s := groupProtocolCrashScenario(realScenario("local-group-protocol-consumer-crash", p))
	checkFencedCrashes(t, runReal(t, s, 0))
}
