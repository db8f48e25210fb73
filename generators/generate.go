package generators

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
	mustDraw(sp)
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
		d := rapidDrawer{t}
		drawClient(d, sp, &s, drawProducerKind(d, sp))
		return s
	})
}

// WorkloadGen draws a workload for a scenario's client configuration.
func WorkloadGen(sp Space, s Scenario) *rapid.Generator[Workload] {
	return rapid.Custom(func(t *rapid.T) Workload {
		return drawWorkload(rapidDrawer{t}, sp, s)
	})
}

// NemesisGen draws a schedule for s (its workload, brokers and time
// limit): faults that can take effect in it (see Available).
func NemesisGen(sp Space, s Scenario) *rapid.Generator[[]Fault] {
	return rapid.Custom(func(t *rapid.T) []Fault {
		return drawNemesis(rapidDrawer{t}, sp, s)
	})
}

// Random is the plain seeded generator for long runs (LongSpace): the same
// seed gives the same scenario.
func Random(seed int64) Scenario { return RandomIn(LongSpace(), seed) }

// RandomIn draws a scenario within sp from seed.
func RandomIn(sp Space, seed int64) Scenario {
	mustDraw(sp)
	r := rand.New(rand.NewPCG(uint64(seed), 0x6b61666b61))
	return build(randDrawer{r}, sp, seed)
}

func build(d drawer, sp Space, seed int64) Scenario {
	s := Scenario{Name: fmt.Sprintf("random-%d", seed), Seed: seed,
		Cluster: Cluster{Provider: sp.Provider, Brokers: sp.Brokers}}
	limitMs := d.intRange("time-limit-ms", int(sp.MinTime/time.Millisecond), int(sp.MaxTime/time.Millisecond))
	s.TimeLimit = Duration(time.Duration(limitMs) * time.Millisecond)
	drawClient(d, sp, &s, drawProducerKind(d, sp))
	s.Workload = drawWorkload(d, sp, s)
	s.Nemesis = drawNemesis(d, sp, s)
	if sp.Shared {
		s.Cluster = Equip(s.Cluster, sp.Kinds)
		// an added broker has no proxy listener: such a draw asks for a
		// cluster without client proxies, which the shared one is replaced by
		s.Cluster.ClientProxies = s.Cluster.ClientProxies && !addsBroker(s)
	}
	return s
}

// Large retries is Kafka's default (unbounded); shrinking goes to it.
var retryChoices = []string{"max", "0", "3"}

// Producer kinds, the seed table's producer rows: idempotent (Kafka's
// default, where shrinking goes), transactional copiers, and a
// non-idempotent producer per acks setting. One pick among them, not a
// chain of coin flips, so that each row is as likely as any other: a
// run of 20 draws then sees acks 0 and 1 (with a copy flip, then an
// idempotence flip, then acks, each was drawn 1 time in 12).
const (
	producerIdempotent    = "idempotent"
	producerTransactional = "transactional"
)

var producerKinds = []string{producerIdempotent, producerTransactional, "all", "1", "0"}

// drawProducerKind picks a producer kind; transactional only when sp
// draws copiers or txn queues, which are the transactional clients.
func drawProducerKind(d drawer, sp Space) string {
	kinds := producerKinds
	if sp.MaxCopiers == 0 && sp.MaxTxnQueues == 0 {
		kinds = slices.DeleteFunc(slices.Clone(kinds), func(k string) bool { return k == producerTransactional })
	}
	return d.pick("producer", kinds)
}

// drawCopying decides whether a transactional draw runs copiers, or txn
// queues alone (they may still run beside copiers: drawWorkload).
func drawCopying(d drawer, sp Space) bool {
	switch {
	case sp.MaxTxnQueues == 0:
		return true
	case sp.MaxCopiers == 0:
		return false
	}
	return d.pick("transactional-clients", []string{"copiers", "txn-queues"}) == "copiers"
}

func drawClient(d drawer, sp Space, s *Scenario, producer string) {
	transactional := producer == producerTransactional
	copying := transactional && drawCopying(d, sp)
	keys := d.intRange("keys", 1, sp.MaxKeys)
	out := ""
	if copying {
		out = "out"
	}
	s.Keys = SequentialKeys(keys, "in", out)

	p := model.DefaultProducer()
	// A transactional producer is idempotent: Kafka requires it.
	p.EnableIdempotence = producer == producerIdempotent || transactional
	if !p.EnableIdempotence {
		var a model.Acks
		_ = a.UnmarshalText([]byte(producer)) // producerKinds' other names are acks values
		p.Acks = a
		switch d.pick("retries", retryChoices) {
		case "0":
			p.Retries = 0
		case "3":
			p.Retries = 3
		}
	}
	p.MaxInFlight = d.intRange("max-in-flight", 1, 5)
	switch {
	case copying:
		p.TransactionalID = "kafkachaos-copier"
	case transactional:
		p.TransactionalID = "kafkachaos-txn" // txn queue i's is kafkachaos-txn-queue-i
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

// drawWorkload draws the clients for s's configuration: copiers when it
// has an output topic, txn queues when its producer is transactional (at
// least one without copiers). A plain producer always runs beside them: a
// crash-producer whose only senders were txn queues could find none open
// at its step (a queue opens its transactional producer first, which a
// latency toxic from the run's start delays past a short run's steps).
func drawWorkload(d drawer, sp Space, s Scenario) Workload {
	w := Workload{
		Producers: d.intRange("producers", 1, sp.MaxProducers),
		Lanes:     d.intRange("lanes", 1, 4),
		Consumers: d.intRange("consumers", minConsumers(sp), sp.MaxConsumers),
		Mode:      ModeGroup,
		Group:     "kafkachaos",
		Mix:       Mix{Send: d.intRange("mix-send", 1, 4), Poll: d.intRange("mix-poll", 1, 4)},
		Rate:      float64(d.intRange("rate", 50, sp.MaxRate)),
		PollBatch: d.intRange("poll-batch", 1, 100),
	}
	if !groupOnly(sp) && d.boolean("assign") {
		w.Mode = ModeAssign
	}
	if s.Keys.OutputTopic != "" {
		w.Copiers = d.intRange("copiers", 1, max(1, sp.MaxCopiers))
	}
	if s.Producer.Transactional() && sp.MaxTxnQueues > 0 {
		w.TxnQueues = d.intRange("txn-queues", boolInt(s.Keys.OutputTopic == ""), sp.MaxTxnQueues)
	}
	if w.Copiers+w.TxnQueues > 0 {
		w.Mix.Txn = d.intRange("mix-txn", 1, 3)
		w.TxnSize = d.intRange("txn-size", 1, 10)
		w.AbortRatio = float64(d.intRange("abort-percent", 0, 50)) / 100
	}
	return w
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// drawNemesis draws at least sp.MinFaults faults that can take effect in
// s: kinds whose need s meets, each starting where it can act. A drawn
// fault that would still be unavailable (a node fault starting without a
// majority up), whose heal would not fit, or that would clash with
// another (clashes) is dropped; the first never is, having no other to
// overlap and a heal that fits (availableKinds, fitting), so a space of
// MinFaults 1 always gets one.
func drawNemesis(d drawer, sp Space, s Scenario) []Fault {
	kinds := availableKinds(sp.Kinds, s)
	if len(kinds) == 0 {
		return nil // mustDraw makes sure a space that needs faults has kinds for them
	}
	if sp.Period > 0 {
		if fs := drawPackages(d, sp, s, kinds); len(fs) >= sp.MinFaults {
			return fs
		}
	}
	n := d.intRange("faults", sp.MinFaults, sp.MaxFaults)
	s.Nemesis = make([]Fault, 0, n)
	whole := window{0, int(s.TimeLimit.D() / time.Millisecond)}
	for i := range n {
		label := func(name string) string { return fmt.Sprintf("fault-%d-%s", i, name) }
		s.Nemesis = keepIfAvailable(s, drawFault(d, label, s, d.pick(label("kind"), kinds), whole))
	}
	return s.Nemesis
}

// drawPackages mixes fault packages over time, as Jepsen's Bufstream
// harness does: the run is cut into periods of sp.Period, and each period
// gets its own package of none to two faults of random kinds within it,
// at most sp.MaxFaults in all (about one a period, so that the last
// periods are not left empty by the first). A fault that could not take
// effect beside the others is dropped.
func drawPackages(d drawer, sp Space, s Scenario, kinds []string) []Fault {
	limitMs := int(s.TimeLimit.D() / time.Millisecond)
	periodMs := int(sp.Period / time.Millisecond)
	for p, at := 0, 0; at < limitMs; p, at = p+1, at+periodMs {
		in := window{at, min(limitMs, at+periodMs)}
		n := d.intRange(fmt.Sprintf("period-%d-faults", p), 0, 2)
		for i := range n {
			label := func(name string) string { return fmt.Sprintf("period-%d-fault-%d-%s", p, i, name) }
			if len(s.Nemesis) < sp.MaxFaults {
				s.Nemesis = keepIfAvailable(s, drawFault(d, label, s, d.pick(label("kind"), kinds), in))
			}
		}
	}
	return s.Nemesis
}

// AddDrawn is s with one more fault of kind, its params and window drawn
// from rng as a draw's are, over the whole run, where it fits beside s's
// faults (keepIfAvailable's rules); s as it was where it does not.
func AddDrawn(s Scenario, kind string, rng *rand.Rand) Scenario {
	label := func(name string) string { return "added-" + name }
	s.Nemesis = keepIfAvailable(s, drawFault(randDrawer{rng}, label, s, kind, window{0, int(s.TimeLimit.D() / time.Millisecond)}))
	return s
}

// keepIfAvailable is s's faults with f, unless f's heal would not fit
// before the run's end, f or another could then not take effect, or two
// would clash (every clash rule, each window stretched by its heal
// budget: see clashes).
func keepIfAvailable(s Scenario, f Fault) []Fault {
	with := s
	with.Nemesis = append(slices.Clip(s.Nemesis), f)
	if !healsInTime(f, with) || !allAvailable(with) || waitsOnProbes(with) || len(clashes(with, true)) > 0 {
		return s.Nemesis
	}
	return with.Nemesis
}

// window is a span of a run, in ms from its start: [from, to).
type window struct{ from, to int }

// drawFault draws one fault of kind within w, its params first: they
// decide when it can act (a commit crash point waits for the group to
// form).
func drawFault(d drawer, label func(string) string, s Scenario, kind string, w window) Fault {
	f := Fault{Kind: kind}
	if draw := kindOf(kind).draw; draw != nil {
		f.Params = draw(d, label, s)
	}
	// the window ends with its heal budget left before the run's
	limitMs := int((s.TimeLimit.D() - healFor(f)) / time.Millisecond)
	lo, hi := startRange(f.need(s), limitMs)
	// start within the window's first 70%, where the fault still has time to
	// act; a window already past the latest start keeps the earliest
	lo = max(lo, w.from)
	hi = max(lo, min(hi, w.from+(w.to-w.from)*7/10))
	minDur := max(1, limitMs/10)
	if window := kindOf(kind).window; window != nil {
		// and early enough for the window its kind needs, where there is room
		minDur = max(minDur, int(window(f)/time.Millisecond))
		hi = max(lo, min(hi, min(w.to, limitMs)-minDur))
	}
	startMs := d.intRange(label("start-ms"), lo, hi)
	end := max(min(w.to, limitMs), startMs+1)
	durMs := d.intRange(label("duration-ms"), min(minDur, end-startMs), end-startMs)
	f.Start = Duration(time.Duration(startMs) * time.Millisecond)
	f.Duration = Duration(time.Duration(durMs) * time.Millisecond)
	return fitStrobe(f)
}

// startRange is where a fault of need n starts, in ms of a run of limitMs:
// once its clients are up, with time left for its effect, and early enough
// (70% of the run) for its window to hold. The first step, at the start,
// can always act; later ones are a bonus.
func startRange(n need, limitMs int) (lo, hi int) {
	lo = int(n.warmup / time.Millisecond)
	last := limitMs - int(n.effect/time.Millisecond) - 1 // a window needs a millisecond
	return lo, max(lo, min(limitMs*7/10, last))
}

// availableKinds is the kinds of a fault s could meet the need of, by its
// workload and brokers and, with the parameters that ask least, its time
// limit.
func availableKinds(kinds []string, s Scenario) []string {
	var out []string
	for _, k := range kinds {
		if fits(s, Fault{Kind: k, Params: kindOf(k).least}) {
			out = append(out, k)
		}
	}
	return out
}

// fits reports whether f, with its kind and parameters, could take effect
// alone in s when it starts as soon as its clients are up, its heal budget
// left before the run ends.
func fits(s Scenario, f Fault) bool {
	f.Start = Duration(f.need(s).warmup)
	f.Duration = max(0, s.TimeLimit-f.Start-Duration(healFor(f)))
	if f.Duration == 0 && !Instantaneous(f.Kind) {
		return false // no window and its heal fit before the run ends
	}
	probe := s
	probe.Nemesis = []Fault{f}
	return Available(probe, 0) == nil
}

// allAvailable reports whether every fault of s can take effect.
func allAvailable(s Scenario) bool {
	for i := range s.Nemesis {
		if Available(s, i) != nil {
			return false
		}
	}
	return true
}

// waitsOnProbes reports whether a fault of s steps while a latency fault's
// probes are out (probeTime): the runner would play that step only once
// they are back, late, and a draw's short run may end first.
func waitsOnProbes(s Scenario) bool {
	for i, a := range s.Nemesis {
		busy := a.probeTime(s.Cluster.Brokers)
		if busy == 0 {
			continue
		}
		for j, b := range s.Nemesis {
			if j != i && slices.ContainsFunc(Steps(b), func(at time.Duration) bool {
				return at >= a.Start.D() && at < a.Start.D()+busy
			}) {
				return true
			}
		}
	}
	return false
}
