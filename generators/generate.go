package generators

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kafkachaos/kafkachaos/model"
	"pgregory.net/rapid"
)

// ScenarioGen draws short scenarios on the embedded cluster (ShortSpace).
func ScenarioGen() *rapid.Generator[Scenario] { return ScenarioGenIn(ShortSpace()) }

// ScenarioGenIn draws scenarios within sp. Each draws a client
// configuration, a workload mix and a nemesis schedule; shrinking goes
// towards fewer faults, fewer keys and clients, and the simplest configs.
func ScenarioGenIn(sp Space) *rapid.Generator[Scenario] {
	return rapid.Custom(func(t *rapid.T) Scenario {
		seed := rapid.Int64Min(0).Draw(t, "seed")
		return build(rapidDrawer{t}, sp, seed)
	})
}

// ClientConfigGen draws producer, topic and consumer configurations that
// Kafka accepts.
func ClientConfigGen(sp Space) *rapid.Generator[Scenario] {
	return rapid.Custom(func(t *rapid.T) Scenario {
		var s Scenario
		s.Cluster = Cluster{Provider: sp.Provider, Brokers: sp.Brokers}
		drawClient(rapidDrawer{t}, sp, &s, rapid.Bool().Draw(t, "copy"))
		return s
	})
}

// WorkloadGen draws a workload for a scenario's client configuration.
func WorkloadGen(sp Space, s Scenario) *rapid.Generator[Workload] {
	return rapid.Custom(func(t *rapid.T) Workload {
		return drawWorkload(rapidDrawer{t}, sp, s)
	})
}

// NemesisGen draws a schedule fitting in timeLimit. It does not know the
// scenario's commit strategy, so its consumer crashes land anywhere, the
// one point every consumer reaches.
func NemesisGen(sp Space, timeLimit time.Duration) *rapid.Generator[[]Fault] {
	return rapid.Custom(func(t *rapid.T) []Fault {
		return drawNemesis(rapidDrawer{t}, sp, timeLimit, []string{CrashAnywhere})
	})
}

// Random is the plain seeded generator for long runs (LongSpace): the same
// seed gives the same scenario.
func Random(seed int64) Scenario { return RandomIn(LongSpace(), seed) }

// RandomIn draws a scenario within sp from seed.
func RandomIn(sp Space, seed int64) Scenario {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6b61666b61))
	return build(randDrawer{r}, sp, seed)
}

func build(d drawer, sp Space, seed int64) Scenario {
	s := Scenario{Name: fmt.Sprintf("random-%d", seed), Seed: seed,
		Cluster: Cluster{Provider: sp.Provider, Brokers: sp.Brokers}}
	limitMs := d.intRange("time-limit-ms", int(sp.MinTime/time.Millisecond), int(sp.MaxTime/time.Millisecond))
	s.TimeLimit = Duration(time.Duration(limitMs) * time.Millisecond)
	copying := sp.MaxCopiers > 0 && d.boolean("copy")
	drawClient(d, sp, &s, copying)
	s.Workload = drawWorkload(d, sp, s)
	s.Nemesis = drawNemesis(d, sp, s.TimeLimit.D(), CrashPoints(s))
	return s
}

// Large retries is Kafka's default (unbounded); shrinking goes to it.
var retryChoices = []string{"max", "0", "3"}

func drawClient(d drawer, sp Space, s *Scenario, copying bool) {
	keys := d.intRange("keys", 1, sp.MaxKeys)
	out := ""
	if copying {
		out = "out"
	}
	s.Keys = SequentialKeys(keys, "in", out)

	p := model.DefaultProducer()
	// A transactional producer is idempotent: Kafka requires it.
	p.EnableIdempotence = copying || !d.boolean("non-idempotent")
	if !p.EnableIdempotence {
		var a model.Acks
		_ = a.UnmarshalText([]byte(d.pick("acks", []string{"all", "1", "0"})))
		p.Acks = a
		switch d.pick("retries", retryChoices) {
		case "0":
			p.Retries = 0
		case "3":
			p.Retries = 3
		}
	}
	p.MaxInFlight = d.intRange("max-in-flight", 1, 5)
	if copying {
		p.TransactionalID = "kafkachaos-copier"
	}
	s.Producer = Producer{ProducerConfig: p, DeliveryTimeout: Duration(10 * time.Second),
		RequestTimeout: Duration(2 * time.Second)}

	rf := d.intRange("replication-factor", 1, s.Cluster.Brokers)
	s.Topic = model.TopicConfig{ReplicationFactor: rf, MinInsyncReplicas: d.intRange("min-insync", 1, rf),
		UncleanLeaderElection: d.boolean("unclean")}

	c := model.ConsumerConfig{IsolationLevel: model.ReadCommitted, CommitStrategy: model.CommitAfterProcessing}
	if d.boolean("read-uncommitted") {
		c.IsolationLevel = model.ReadUncommitted
	}
	if copying {
		c.CommitStrategy = model.CommitTransactional
	} else {
		c.CommitStrategy = model.CommitStrategy(d.pick("commit", []string{
			string(model.CommitAfterProcessing), string(model.CommitBeforeProcessing), string(model.CommitAuto)}))
	}
	s.Consumer = Consumer{ConsumerConfig: c, SessionTimeout: Duration(time.Second),
		AutoCommitInterval: Duration(100 * time.Millisecond)}
}

func drawWorkload(d drawer, sp Space, s Scenario) Workload {
	w := Workload{
		Producers: d.intRange("producers", 1, sp.MaxProducers),
		Lanes:     d.intRange("lanes", 1, 4),
		Consumers: d.intRange("consumers", 0, sp.MaxConsumers),
		Mode:      ModeGroup,
		Group:     "kafkachaos",
		Mix:       Mix{Send: d.intRange("mix-send", 1, 4), Poll: d.intRange("mix-poll", 1, 4)},
		Rate:      float64(d.intRange("rate", 50, sp.MaxRate)),
		PollBatch: d.intRange("poll-batch", 1, 100),
	}
	if d.boolean("assign") {
		w.Mode = ModeAssign
	}
	if s.Keys.OutputTopic != "" {
		w.Copiers = d.intRange("copiers", 1, max(1, sp.MaxCopiers))
		w.Mix.Txn = d.intRange("mix-txn", 1, 3)
		w.TxnSize = d.intRange("txn-size", 1, 10)
		w.AbortRatio = float64(d.intRange("abort-percent", 0, 50)) / 100
	}
	return w
}

// drawNemesis draws a schedule; consumer crashes land at one of points.
func drawNemesis(d drawer, sp Space, limit time.Duration, points []string) []Fault {
	n := d.intRange("faults", 0, sp.MaxFaults)
	limitMs := int(limit / time.Millisecond)
	out := make([]Fault, 0, n)
	for i := range n {
		label := func(s string) string { return fmt.Sprintf("fault-%d-%s", i, s) }
		f := Fault{Kind: d.pick(label("kind"), sp.Kinds)}
		startMs := d.intRange(label("start-ms"), 0, limitMs*7/10)
		minDur := max(1, limitMs/10)
		durMs := d.intRange(label("duration-ms"), minDur, max(minDur, limitMs-startMs))
		f.Start = Duration(time.Duration(startMs) * time.Millisecond)
		f.Duration = Duration(time.Duration(min(durMs, limitMs-startMs)) * time.Millisecond)
		f.Params = drawParams(d, label, f.Kind, points)
		out = append(out, f)
	}
	return out
}

func drawParams(d drawer, label func(string) string, kind string, points []string) FaultParams {
	var p FaultParams
	switch kind {
	case KindLostAck, KindDrop, KindDelay:
		p.Probability = float64(d.intRange(label("percent"), 10, 100)) / 100
	}
	switch kind {
	case KindDelay:
		p.Delay = Duration(time.Duration(d.intRange(label("delay-ms"), 10, 300)) * time.Millisecond)
	case KindCrashConsumer:
		p.Point = d.pick(label("point"), points)
		fallthrough
	case KindCrashProducer, KindLeaderShuffle, KindChurn:
		p.Every = Duration(time.Duration(d.intRange(label("every-ms"), 200, 2000)) * time.Millisecond)
	}
	return p
}

// CrashPoints is the consumer crash points s's consumers reach: a crash
// requested at any other point could never take effect. Only group
// consumers commit as the strategy says (assign-mode and transactional
// consumers commit nothing themselves), and a poll passes after-commit only
// when it commits before processing or auto-commits, before-commit only
// when it commits after processing.
func CrashPoints(s Scenario) []string {
	if s.Workload.Mode != ModeGroup {
		return []string{CrashAnywhere}
	}
	switch s.Consumer.CommitStrategy {
	case model.CommitBeforeProcessing:
		return []string{CrashAnywhere, CrashAfterCommit}
	case model.CommitAfterProcessing:
		return []string{CrashAnywhere, CrashBeforeCommit}
	case model.CommitAuto:
		// after an auto-commit covered records not yet processed
		return []string{CrashAnywhere, CrashAfterCommit}
	}
	return []string{CrashAnywhere}
}
