package generators

import "time"

// Consumer crash points (FaultParams.Point).
const (
	CrashAnywhere     = "anywhere"
	CrashAfterCommit  = "after-commit"
	CrashBeforeCommit = "before-commit"
)

// need is what a fault kind needs of its scenario to take effect: the
// kind's availability rule, as etcd's robustness suite gives each
// failpoint an Available(config) check. A fault whose need is unmet is
// scheduled, counted and reported, and proves nothing; Available applies
// the rule, Validate refuses such a fault and the generators never draw one.
type need struct {
	senders   bool // acts on produce requests or on a producer: producers or copiers must run
	copiers   bool // acts on a copier
	txnQueues bool // acts on a txn queue
	consumers bool // acts on a consumer
	group     bool // acts on a group member, which only group-mode consumers are
	brokers   int  // fewest brokers on which it has an effect
	takesDown bool // takes nodes out: a majority must be up when it starts (see majorityUp)
	// warmup is how long after the run starts the clients it acts on are
	// up; effect how long before the run ends a step must land for its
	// effect to show. A fault needs one step between the two.
	warmup, effect time.Duration
}

// Client timings the needs use, seen on the embedded cluster with two
// loaded cores, with margin: a consumer slot has a consumer within tens of
// milliseconds; a group member owns partitions and polls records within a
// few hundred, and a crashed member's successor about a second after the
// crash (successive after-commit crashes landed 1.0s apart); a requested
// crash lands at the client's next poll or transaction, a few ops later.
const (
	clientStart = 200 * time.Millisecond
	groupJoin   = time.Second
	crashEffect = 500 * time.Millisecond
)

// needOf is each kind's availability rule with the parameters that ask
// least (see Fault.need for f's own).
func needOf(kind string) need { return kindOf(kind).needFor(Fault{Kind: kind}, Scenario{}) }

// needFor is k's availability rule for f in s; an unknown kind needs
// nothing (Validate refuses it first).
func (k Kind) needFor(f Fault, s Scenario) need {
	if k.need == nil {
		return need{}
	}
	return k.need(f, s)
}
