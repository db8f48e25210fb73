package histories

import "encoding/json"

// Type is the outcome of an operation, as in Jepsen.
type Type string

const (
	// Invoke starts an operation; its completion is a later op of the same process.
	Invoke Type = "invoke"
	// OK means the operation certainly happened.
	OK Type = "ok"
	// Fail means the operation certainly did not happen.
	Fail Type = "fail"
	// Info means the outcome is unknown (timeout, disconnect, crash).
	Info Type = "info"
)

// Valid reports whether t is one of the four op types.
func (t Type) Valid() bool {
	return t == Invoke || t == OK || t == Fail || t == Info
}

// Client and nemesis operation names (the op's f). Nemesis fs are open-ended:
// any f on the nemesis process is a fault event.
const (
	FSend      = "send"
	FPoll      = "poll"
	FTxn       = "txn"
	FAssign    = "assign"
	FSubscribe = "subscribe"
	FCommit    = "commit"
	FCrash     = "crash"
	// FClientHang is a liveness finding, not an operation: a client call
	// outlived its timeout by a grace. Its Value names the call, the
	// timeout and how long it had blocked when the harness abandoned the
	// client; the process records nothing after it (like a crash).
	FClientHang = "client-hang"
)

// NemesisProcess is the process id of fault events.
const NemesisProcess = -1

// Key is a logical key: one topic-partition. scenario.json maps keys to
// topic/partition.
type Key = int64

// Op is one event of a history.
//
// Which value field is set depends on F: send, poll, txn and commit carry Mops;
// assign and subscribe carry Keys; every other f (nemesis events, crash)
// carries Value verbatim.
type Op struct {
	Index   int64 `json:"index"`
	Time    int64 `json:"time"` // nanoseconds since run start
	Process int64 `json:"process"`
	Type    Type  `json:"type"`
	F       string

	Mops  []Mop
	Keys  []Key
	Value json.RawMessage

	Group     string     // consumer group, for ops of a group member
	Rebalance *Rebalance // set when a rebalance happened inside the op
	Error     string     // the client's error, for fail and info completions

	// Extra keeps fields this package does not interpret (e.g. Jepsen's
	// :rebalance-log), so that export after import loses nothing.
	Extra map[string]json.RawMessage
}

// Rebalance lists the keys a consumer lost and gained during an op.
type Rebalance struct {
	Revoked  []Key `json:"revoked,omitempty"`
	Assigned []Key `json:"assigned,omitempty"`
}

// MopF names a micro-operation.
type MopF string

const (
	// MSend appends Value to Key; Offset is where it landed when known.
	MSend MopF = "send"
	// MPoll reads Records; an invoke poll has none.
	MPoll MopF = "poll"
	// MCommit commits Offsets (the next offset to consume, per key) for the
	// op's group; inside a txn it is sendOffsetsToTransaction.
	MCommit MopF = "commit"
)

// NoOffset marks a send whose offset is unknown.
const NoOffset int64 = -1

// Mop is a micro-operation: one send, one poll or one offset commit.
type Mop struct {
	F       MopF
	Key     Key              // send
	Value   int64            // send
	Offset  int64            // send; NoOffset when unknown
	Records map[Key][]Record // poll: per key, records in offset order
	Offsets map[Key]int64    // commit
}

// Record is one record read by a poll.
type Record struct {
	Offset int64
	Value  int64
}

// Send returns a send micro-op with unknown offset.
func Send(k Key, v int64) Mop { return Mop{F: MSend, Key: k, Value: v, Offset: NoOffset} }

// IsClient reports whether the op belongs to a client process rather than the nemesis.
func (o *Op) IsClient() bool { return o.Process != NemesisProcess }

// Clone returns a deep copy of o. Readers that reuse ops between callbacks
// (Reader.Scan) need callers to clone what they keep.
func (o *Op) Clone() *Op {
	c := *o
	if o.Mops != nil {
		c.Mops = make([]Mop, len(o.Mops))
		for i := range o.Mops {
			c.Mops[i] = o.Mops[i].clone()
		}
	}
	c.Keys = cloneSlice(o.Keys)
	c.Value = cloneSlice(o.Value)
	if o.Rebalance != nil {
		c.Rebalance = &Rebalance{Revoked: cloneSlice(o.Rebalance.Revoked), Assigned: cloneSlice(o.Rebalance.Assigned)}
	}
	if o.Extra != nil {
		c.Extra = make(map[string]json.RawMessage, len(o.Extra))
		for k, v := range o.Extra {
			c.Extra[k] = cloneSlice(v)
		}
	}
	return &c
}

func (m *Mop) clone() Mop {
	c := *m
	if m.Records != nil {
		c.Records = make(map[Key][]Record, len(m.Records))
		for k, rs := range m.Records {
			c.Records[k] = cloneSlice(rs)
		}
	}
	if m.Offsets != nil {
		c.Offsets = make(map[Key]int64, len(m.Offsets))
		for k, o := range m.Offsets {
			c.Offsets[k] = o
		}
	}
	return c
}

// cloneSlice copies s, keeping nil as nil.
func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}
