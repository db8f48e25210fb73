package clienttest

import (
	"math/rand"

	"github.com/kafkachaos/kafkachaos/histories"
)

// OpsOf returns the ops of process p.
func OpsOf(ops []histories.Op, p int64) []histories.Op {
	var out []histories.Op
	for _, o := range ops {
		if o.Process == p {
			out = append(out, o)
		}
	}
	return out
}

// Planner draws txn queue transactions as Jepsen's queue workload does:
// one to four mops, each a poll or a send of a fresh value (1, 2, ...) to
// one of keys 0-3 that no other send of the transaction writes.
type Planner struct {
	rng  *rand.Rand
	next int64
}

// NewPlanner is a Planner drawing from seed.
func NewPlanner(seed int64) *Planner { return &Planner{rng: rand.New(rand.NewSource(seed))} }

// Plan draws one transaction.
func (p *Planner) Plan() []histories.Mop {
	keys := p.rng.Perm(4)
	var plan []histories.Mop
	for range 1 + p.rng.Intn(4) {
		if p.rng.Intn(2) == 0 || len(keys) == 0 {
			plan = append(plan, histories.Mop{F: histories.MPoll})
			continue
		}
		p.next++
		plan = append(plan, histories.Send(histories.Key(keys[0]), p.next))
		keys = keys[1:]
	}
	return plan
}

// TxnValues returns the values sent by txn ops of type typ, and the values
// ok txn ops read.
func TxnValues(ops []histories.Op, typ histories.Type) (sent, readOK map[int64]bool) {
	sent, readOK = map[int64]bool{}, map[int64]bool{}
	for _, o := range ops {
		if o.F != histories.FTxn {
			continue
		}
		for _, m := range o.Mops {
			if m.F == histories.MSend && o.Type == typ {
				sent[m.Value] = true
			}
			for _, recs := range m.Records {
				for _, rec := range recs {
					if o.Type == histories.OK {
						readOK[rec.Value] = true
					}
				}
			}
		}
	}
	return sent, readOK
}

// FinalValues returns every value the ok final reads returned: the ops
// whose Extra holds marker (client.FinalExtra, passed in so that package
// client's own tests can use this).
func FinalValues(ops []histories.Op, marker string) map[int64]bool {
	out := map[int64]bool{}
	for _, o := range ops {
		if _, final := o.Extra[marker]; !final || o.Type != histories.OK {
			continue
		}
		for _, m := range o.Mops {
			for _, recs := range m.Records {
				for _, rec := range recs {
					out[rec.Value] = true
				}
			}
		}
	}
	return out
}
