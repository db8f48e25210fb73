package kafkachaos_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// The embedded suite's claim for the Java client: kafka-clients in JVMs
// (producers and a group consumer) against the embedded cluster, whose
// faults act on the Kafka protocol whatever client speaks it.

// requireJDK skips a claim of the Java client where no JDK or Maven is
// installed, so that the embedded suite needs nothing but Go; in CI
// (CI=true), where set-up installs them, their absence fails it.
func requireJDK(t *testing.T) {
	t.Helper()
	for _, c := range []string{"java", "javac", "mvn"} {
		if _, err := exec.LookPath(c); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the java client's claim needs %s on PATH (CI=true: not skipping)", c)
			}
			t.Skipf("the java client's claim needs %s on PATH", c)
		}
	}
}

// An idempotent Java producer whose acknowledgements are lost (applied,
// then answered with an error), read by a Java group consumer committing
// after processing: the producer's retries are deduplicated, and nothing
// acknowledged is lost on either hop.
func TestChaosJavaIdempotentLostAcks(t *testing.T) {
	requireJDK(t)
	parallelOnEmbedded(t)
	s := base("java-idempotent-lost-acks", 15*time.Second) // the JVMs take seconds to start on loaded cores
	s.Client = generators.ClientJava
	s.Workload.Consumers, s.Workload.Mode = 1, generators.ModeGroup
	s.Consumer.CommitStrategy = model.CommitAfterProcessing
	out := runLosingAcks(t, s)
	for _, a := range []checkers.Anomaly{checkers.Duplicate, checkers.LostWrite, checkers.Unseen, checkers.LostDelivery} {
		if n := out.Result.Counts[a]; n != 0 {
			t.Errorf("idempotent Java producer, Java consumer: %d %s", n, a)
		}
	}
	if out.Stats.OpsByType["poll ok"] == 0 {
		t.Errorf("the Java consumer made no ok poll")
	}
	wantHop(t, "producer", out.Observed.Producer, model.ExactlyOnce)
	t.Logf("%d lost acknowledgements -> no duplicate, no loss (%d polls ok)", hits(out), out.Stats.OpsByType["poll ok"])
}

// A Java producer's JVM stopped whole (SIGSTOP) for 4 s of the run and let
// go on, without worker processes: the pause fires and heals, the JVM's
// sends held across it complete (no client hang: its stopped time is not
// counted against its bounds), and nothing acknowledged is lost.
func TestChaosJavaPausedProducerGoesOn(t *testing.T) {
	requireJDK(t)
	parallelOnEmbedded(t)
	s := base("java-paused-producer", 12*time.Second)
	s.Clients = map[string]string{generators.RoleProducer: generators.ClientJava}
	s.Nemesis = []generators.Fault{{Kind: generators.KindPauseClient, Start: d(4 * time.Second), Duration: d(4 * time.Second),
		Params: generators.FaultParams{Role: generators.RoleProducer}}}
	out := run(t, s)
	if out.Stats.FaultsFired != 1 {
		t.Fatalf("pause-client fired %d times, want once: %+v", out.Stats.FaultsFired, out.Stats.Faults)
	}
	if n := out.Stats.OpsByType["client-hang info"]; n != 0 {
		t.Errorf("%d client hangs: the pause was counted against the JVM's bounds", n)
	}
	for _, a := range []checkers.Anomaly{checkers.LostWrite, checkers.Unseen} {
		if n := out.Result.Counts[a]; n != 0 {
			t.Errorf("paused Java producer: %d %s", n, a)
		}
	}
	if lat := out.Stats.Latency["send"]; lat.Max < 3000 {
		t.Errorf("send latency max %.0f ms: no send waited out the 4 s pause", lat.Max)
	}
	t.Logf("send latency %+v ms", out.Stats.Latency["send"])
}
