package checkers

import (
	"encoding/json"
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

// threeSent appends ok sends of 10, 11, 12 to key 1 at offsets 0..2.
func threeSent(h *hist) {
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(0, ok, "send", snd(1, 11, 1))
	h.op(0, ok, "send", snd(1, 12, 2))
}

func TestPollOrder(t *testing.T) {
	runPairs(t, []pair{{
		name: "poll-skip",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 2, 12))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 1, 11, 2, 12))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		want: []Anomaly{PollSkip},
		ops:  []int64{3, 4},
	}, {
		name: "poll-skip ignores offset gaps that hold no record",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 2))
			h.op(0, ok, "send", snd(1, 12, 4))
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 4, 12))
			h.op(2, ok, "poll", pl(1, 0, 10, 2, 11, 4, 12))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 2))
			h.op(0, ok, "send", snd(1, 12, 4))
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 2, 11))
			h.op(2, ok, "poll", pl(1, 0, 10, 2, 11, 4, 12))
		},
		want: []Anomaly{PollSkip},
	}, {
		name: "nonmonotonic-poll",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.op(1, ok, "poll", pl(1, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.op(2, ok, "poll", pl(1, 1, 11, 2, 12))
		},
		want: []Anomaly{NonmonotonicPoll},
		ops:  []int64{3, 4},
	}, {
		name: "assign of other keys resets the position",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.keys(1, ok, "assign", 1, 2)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.keys(1, ok, "assign", 2)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		want: []Anomaly{NonmonotonicPoll},
	}, {
		name: "a rebalance of the key resets the position",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
			h.last().Rebalance = &histories.Rebalance{Assigned: []int64{2}}
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
			h.last().Rebalance = &histories.Rebalance{Revoked: []int64{1}, Assigned: []int64{1}}
		},
		want: []Anomaly{NonmonotonicPoll},
	}, {
		name: "Jepsen's rebalance-log resets the position",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 2, 12))
			h.last().Extra = map[string]json.RawMessage{"rebalance-log": json.RawMessage(`[{"keys":[2]}]`)}
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 2, 12))
			h.last().Extra = map[string]json.RawMessage{"rebalance-log": json.RawMessage(`[{"keys":[1]}]`)}
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		want: []Anomaly{PollSkip},
	}, {
		// The EDN importer fills Rebalance from the log and keeps the log
		// itself in Extra: Rebalance is what counts.
		name: "Op.Rebalance wins over the rebalance-log extra",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 2, 12))
			h.last().Rebalance = &histories.Rebalance{Revoked: []int64{2}}
			h.last().Extra = map[string]json.RawMessage{"rebalance-log": json.RawMessage(`[{"keys":[1]}]`)}
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 2, 12))
			h.last().Rebalance = &histories.Rebalance{Revoked: []int64{1}}
			h.last().Extra = map[string]json.RawMessage{"rebalance-log": json.RawMessage(`[{"keys":[2]}]`)}
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		want: []Anomaly{PollSkip},
	}, {
		name: "only ok polls move the position",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, info, "poll", pl(1, 1, 11))
			h.op(1, ok, "poll", pl(1, 2, 12))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 1, 11))
			h.op(1, ok, "poll", pl(1, 2, 12))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		want: []Anomaly{PollSkip},
	}, {
		name: "subscribe allowance",
		opts: Options{SubscribeAllowsPollSkip: true},
		bad: func(h *hist) {
			threeSent(h)
			h.keys(1, ok, "assign", 1)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 2, 12))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			threeSent(h)
			h.keys(1, ok, "subscribe", 1)
			h.op(1, ok, "poll", pl(1, 0, 10))
			h.op(1, ok, "poll", pl(1, 2, 12))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		want: []Anomaly{PollSkip},
	}, {
		name: "int-poll-skip",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 2, 12))
			h.op(2, ok, "poll", pl(1, 1, 11))
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
			h.op(2, ok, "poll", pl(1, 1, 11))
		},
		want: []Anomaly{IntPollSkip},
		ops:  []int64{3},
	}, {
		name: "int-nonmonotonic-poll across two poll micro-ops",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "txn", pl(1, 1, 11, 2, 12), pl(1, 0, 10))
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "txn", pl(1, 0, 10), pl(1, 1, 11, 2, 12))
		},
		want: []Anomaly{IntNonmonotonicPoll},
		ops:  []int64{3},
	}, {
		name: "int-poll checks skip rebalanced keys",
		bad: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 2, 12), pl(1, 1, 11))
		},
		good: func(h *hist) {
			threeSent(h)
			h.op(1, ok, "poll", pl(1, 0, 10, 2, 12), pl(1, 1, 11))
			h.last().Rebalance = &histories.Rebalance{Revoked: []int64{1}}
		},
		want: []Anomaly{IntPollSkip, IntNonmonotonicPoll},
	}})
}

func TestCrashForgetsProcess(t *testing.T) {
	h := &hist{}
	threeSent(h)
	h.op(1, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
	h.op(1, info, "crash")
	expectOnly(t, check(t, h, Options{}))
}
