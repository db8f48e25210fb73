package generators

import (
	"reflect"
	"sync"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// Kind is one fault kind, everything the scenario side knows of it in one
// place: what it does, the parameters it reads and their check, the
// capability a provider needs for it, when it can act (its need), what it
// takes out while active (its footprint, from which the clash rules
// decide what may overlap it), how long its heal may need, and how a draw
// places it. Each kind lives in its own file, kind_<name>.go; the
// providers' builders (runner, sim) give it its effect.
type Kind struct {
	// Name is the kind as scenario.json and --nemesis spell it.
	Name string
	// Doc says what a fault of the kind does, in a paragraph (the fault
	// reference, docs/faults.md, is made from it).
	Doc string
	// Capability is the cluster capability a provider needs for it; ""
	// for faults on the harness's own clients, which every provider has.
	Capability cluster.Capability
	// Instant kinds fire at points in time (at Start, then every
	// Params.Every) rather than holding a window.
	Instant bool
	// Drawn kinds are taken by random draws on every provider that has
	// their capability (KindsFor); the others are scheduled by hand.
	Drawn bool
	// Owns are the parameters (FaultParams, by JSON name) that this kind
	// alone reads: any other kind refuses them.
	Owns []string

	least         FaultParams // the parameters that ask least of a run, where none do not
	defaultTarget string      // the target of a fault that names none, where it is not one
	targets       []string    // the Params.Target values it takes, "" aside; nil: realTargets

	heal      time.Duration                                                     // worst case (HealBudget)
	outlives  string                                                            // what its heal cannot undo (Outlives)
	healOf    func(f Fault) time.Duration                                       // per fault, when it depends on the params
	need      func(f Fault, s Scenario) need                                    // availability rule
	check     func(f Fault, field string, s *Scenario) error                    // parameters and what it asks of s
	defaults  func(f *Fault, limit Duration, fl FaultFlags)                     // what --nemesis fills in
	footprint func(f Fault, s Scenario) Footprint                               // what it takes out while active
	draw      func(d drawer, label func(string) string, s Scenario) FaultParams // a draw's parameters
	probe     func(f Fault, brokers int) time.Duration                          // how long its start waits for a probe
	window    func(f Fault) time.Duration                                       // the shortest window a draw gives it, where a tenth of the run may be short
	available func(s Scenario, f Fault, field string) error                     // what it needs of s beyond its need
	kafka     KafkaNeed                                                         // the release it needs (Min, Why; Field is filled in)
}

// Registry is every fault kind, in a fixed order (the order Kinds lists and
// docs/faults.md documents them in).
func Registry() []Kind {
	return []Kind{
		lostAckKind(), delayKind(), dropKind(), leaderShuffleKind(), killKind(), pauseKind(), partitionKind(),
		crashProducerKind(), crashConsumerKind(), churnKind(),
		cleanRestartKind(), rollingRestartKind(), isolateLeaderKind(), bridgeKind(), cutClientsKind(),
		packetLossKind(), slowLinkKind(), isolateLeaderReplicationKind(), latencyKind(), delayedRequestsKind(),
		pauseClientKind(), reassignKind(), removeBrokerKind(), addBrokerKind(), powerLossKind(), diskFaultKind(),
		clockSkewKind(), removeVoterKind(), stallConsumerKind(),
	}
}

// LookupKind is the registered kind named name.
func LookupKind(name string) (Kind, bool) {
	for _, k := range Registry() {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// kindOf is the kind named name, or the zero Kind (no capability, no
// need, no footprint) for a name Validate refuses anyway. It reads
// byName, as draws ask it at every step.
func kindOf(name string) Kind { return byName()[name] }

// byName is Registry by name, made once: a constant table (nothing
// changes it once made), which the draws would otherwise build again for
// every question they ask of a kind.
func byName() map[string]Kind {
	registryTable.once.Do(func() {
		registryTable.byName = map[string]Kind{}
		for _, k := range Registry() {
			registryTable.byName[k.Name] = k
		}
	})
	return registryTable.byName
}

var registryTable struct {
	once   sync.Once
	byName map[string]Kind
}

// Kinds returns every fault kind's name, in a fixed order.
func Kinds() []string {
	var out []string
	for _, k := range Registry() {
		out = append(out, k.Name)
	}
	return out
}

func knownKind(name string) bool {
	_, ok := byName()[name]
	return ok
}

// KindCapability is the cluster capability kind needs ("" for faults on
// clients, which every provider allows, and for unknown kinds).
func KindCapability(kind string) cluster.Capability { return kindOf(kind).Capability }

// Instantaneous reports whether kind fires at points in time (at Start,
// then every Params.Every) rather than holding a window.
func Instantaneous(kind string) bool { return kindOf(kind).Instant }

// HealBudget is the longest its heal may take, beyond undoing the fault,
// to leave the cluster healthy: brokers restarted from a lost page cache
// recover their logs and elect a quorum again, a broker added leaves. A
// draw leaves it between the window's end and the run's, and before a
// window that clashes with it starts.
func (k Kind) HealBudget() time.Duration { return k.heal }

// Outlives says what of a fault of the kind its heal cannot undo, so that
// a cluster shared by many runs is replaced after a run with one rather
// than handed on unlike a fresh cluster; "" for the kinds a heal undoes
// whole.
func (k Kind) Outlives() string { return k.outlives }

// healFor is f's heal budget: its kind's, or less where f's parameters
// ask less (a power loss of one broker rather than all).
func healFor(f Fault) time.Duration {
	k := kindOf(f.Kind)
	if k.healOf != nil {
		return k.healOf(f)
	}
	return k.heal
}

// FaultFlags are the run command's flags a fault named alone (--nemesis)
// may take its parameters from.
type FaultFlags struct {
	Probability float64 // --fault-probability
	Point       string  // --crash-point
}

// Defaults is the fault of kind k that --nemesis kind runs in a run of
// limit: active over the middle 80% of it, with the parameters the kind
// needs filled in from fl or its own defaults.
func (k Kind) Defaults(limit Duration, fl FaultFlags) Fault {
	f := Fault{Kind: k.Name, Start: limit / 10, Duration: limit * 8 / 10}
	if k.defaults != nil {
		k.defaults(&f, limit, fl)
	}
	return f
}

// Footprint is what f of kind k takes out while active in s.
func (k Kind) Footprint(f Fault, s Scenario) Footprint {
	if k.footprint == nil {
		return Footprint{}
	}
	return k.footprint(f, s)
}

// everyFlag is the instantaneous kinds' --nemesis default: a step every
// half second.
func everyFlag(f *Fault, _ Duration, _ FaultFlags) {
	f.Params = FaultParams{Every: Duration(500 * time.Millisecond)}
}

// staticNeed is a need that no parameter changes.
func staticNeed(n need) func(Fault, Scenario) need {
	return func(Fault, Scenario) need { return n }
}

// isZero reports whether p sets no parameter.
func isZero(p FaultParams) bool { return reflect.ValueOf(p).IsZero() }

// drawNone is the draw rule of a kind drawn without parameters (the seed
// picks what it acts on).
func drawNone(drawer, func(string) string, Scenario) FaultParams { return FaultParams{} }
