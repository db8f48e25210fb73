package kafkachaos_test

import (
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// The producer claims again with franz-go (kgo, in process) as the
// producer under test; the consumers, which only observe, stay
// librdkafka. franz-go is judged by the same model as librdkafka.

// franzProducers names franz-go for s's producers.
func franzProducers(s generators.Scenario) generators.Scenario {
	s.Clients = map[string]string{generators.RoleProducer: generators.ClientFranzGo}
	return s
}

// An idempotent franz-go producer whose acknowledgements are lost
// (applied, then answered with an error) and which is crashed and
// replaced along the way: its retries are deduplicated, so no value is
// written twice, and no acknowledged value is lost.
func TestChaosFranzProducerIdempotentLostAcksAndCrashes(t *testing.T) {
	parallelOnEmbedded(t)
	s := franzProducers(base("franz-idempotent", 4*time.Second))
	s.Nemesis = lostAcks(s)
	start, dur := window(s)
	s.Nemesis = append(s.Nemesis, generators.Fault{Kind: generators.KindCrashProducer, Start: start, Duration: dur,
		Params: generators.FaultParams{Every: d(700 * time.Millisecond)}})
	out := run(t, s)
	mustHaveWorked(t, out, 50, "send")
	if hits(out) == 0 {
		t.Errorf("no acknowledgement was lost")
	}
	if out.Stats.Crashes == 0 {
		t.Errorf("no producer crashed")
	}
	for _, a := range []checkers.Anomaly{checkers.Duplicate, checkers.LostWrite, checkers.Unseen} {
		if n := out.Result.Counts[a]; n != 0 {
			t.Errorf("idempotent franz-go producer: %d %s", n, a)
		}
	}
	wantHop(t, "producer", out.Observed.Producer, model.ExactlyOnce)
	t.Logf("%d lost acknowledgements, %d crashes -> no duplicate, no loss", hits(out), out.Stats.Crashes)
}

// Its negative control: without idempotence the same lost
// acknowledgements make franz-go's retries write values twice.
func TestChaosFranzProducerRetriesWithoutIdempotenceDuplicate(t *testing.T) {
	parallelOnEmbedded(t)
	s := franzProducers(base("franz-retries-no-idempotence", 3*time.Second))
	s.Producer.EnableIdempotence = false
	s.Producer.MaxInFlight = 1
	out := runLosingAcks(t, s)
	if out.Result.Counts[checkers.Duplicate] == 0 {
		t.Errorf("no duplicate found after %d lost acknowledgements", hits(out))
	}
	wantHop(t, "producer", out.Observed.Producer, model.AtLeastOnce)
}
