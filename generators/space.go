package generators

import (
	"fmt"
	"time"
)

// Space bounds what a generator draws: the cluster it targets, the fault
// kinds that cluster supports, and how big and long a scenario may be.
type Space struct {
	Provider string
	Brokers  int
	// Kinds are the fault kinds to draw from (see KindCapability).
	Kinds []string
	// TimeLimit bounds the run's length.
	MinTime, MaxTime time.Duration
	MaxKeys          int
	MaxProducers     int
	MaxConsumers     int
	MaxCopiers       int
	// MaxTxnQueues bounds the txn queues (Workload.TxnQueues) a draw with
	// a transactional producer runs; 0 draws none.
	MaxTxnQueues int
	// MinFaults is the fewest faults a draw has; 0 lets rapid shrink a
	// failure to a schedule without faults. Every drawn fault can take
	// effect in its scenario (see Available).
	MinFaults, MaxFaults int
	// MaxRate bounds ops per second.
	MaxRate int
	// Period, when set, mixes fault packages over time: each period of
	// the run gets its own random subset of the kinds (sometimes none),
	// as Jepsen's Bufstream harness switches packages every few seconds;
	// 0 draws MinFaults..MaxFaults faults anywhere in the run.
	Period time.Duration
	// Shared says the draws run one after another on one running cluster
	// (runner.Reuse): each draw's cluster is equipped for every kind of
	// Kinds (Equip), so that none needs a cluster of its own.
	Shared bool
}

// ShortSpace is for property tests: embedded cluster, a few seconds, a
// handful of keys, clients and faults, so a failure shrinks to something a
// person can read.
func ShortSpace() Space {
	return Space{Provider: "embedded", Brokers: 3, Kinds: KindsFor("embedded"),
		MinTime: 2 * time.Second, MaxTime: 4 * time.Second,
		MaxKeys: 3, MaxProducers: 2, MaxConsumers: 2, MaxCopiers: 1, MaxTxnQueues: 2, MaxFaults: 3, MaxRate: 400}
}

// FastSpace is for the default random chaos test: many draws on the
// embedded cluster in about two minutes. Each runs 1.5-3s, which with the
// cluster's start, the check and the report makes a draw of about 5-6s,
// and has 1-4 faults that can all take effect in it, so no draw explores
// only the fault-free corner.
func FastSpace() Space {
	sp := ShortSpace()
	sp.MinTime, sp.MaxTime = 1500*time.Millisecond, 3*time.Second
	sp.MinFaults, sp.MaxFaults = 1, 4
	return sp
}

// LongSpace is for long seeded runs: minutes, more keys, clients and
// faults, at least one (a long run without faults is a benchmark), mixed
// in packages that change every 10 s.
func LongSpace() Space {
	return Space{Provider: "embedded", Brokers: 3, Kinds: KindsFor("embedded"),
		MinTime: 30 * time.Second, MaxTime: 3 * time.Minute,
		MaxKeys: 8, MaxProducers: 4, MaxConsumers: 4, MaxCopiers: 2, MaxTxnQueues: 3, MinFaults: 1, MaxFaults: 20, MaxRate: 2000,
		Period: 10 * time.Second}
}

// check reports a space no draw can honour: one that needs faults must
// have a kind that can act on its brokers and the clients it may draw.
func (sp Space) check() error {
	switch {
	case sp.MinFaults < 0 || sp.MinFaults > sp.MaxFaults:
		return fmt.Errorf("faults %d..%d: want 0 <= min <= max", sp.MinFaults, sp.MaxFaults)
	case sp.MinFaults == 0:
		return nil
	case sp.MaxConsumers < minConsumers(sp):
		return fmt.Errorf("every kind of %v acts on consumers, and at most %d are drawn", sp.Kinds, sp.MaxConsumers)
	}
	for _, k := range sp.Kinds {
		if !knownKind(k) {
			return fmt.Errorf("kind %q is not one of %v", k, Kinds())
		}
		if needOf(k).brokers <= sp.Brokers {
			return nil
		}
	}
	return fmt.Errorf("no kind of %v acts on %d brokers", sp.Kinds, sp.Brokers)
}

// mustDraw panics on a space no draw can honour: a caller's mistake,
// better named at once than found as draws without faults.
func mustDraw(sp Space) {
	if err := sp.check(); err != nil {
		panic("generators: space: " + err.Error())
	}
}

// minConsumers is the fewest consumers a draw in sp has: one when it needs
// faults and every kind acts on a consumer, so that some fault can act.
func minConsumers(sp Space) int {
	if sp.MinFaults == 0 {
		return 0
	}
	for _, k := range sp.Kinds {
		if !needOf(k).consumers {
			return 0
		}
	}
	return 1
}

// groupOnly reports whether a draw in sp must put its consumers in a
// group: it needs faults and every kind acts on a group member.
func groupOnly(sp Space) bool {
	if sp.MinFaults == 0 || len(sp.Kinds) == 0 {
		return false
	}
	for _, k := range sp.Kinds {
		if !needOf(k).group {
			return false
		}
	}
	return true
}
