package checkers

import (
	"testing"

	"github.com/kafkachaos/kafkachaos/histories"
)

func TestSendOrder(t *testing.T) {
	runPairs(t, []pair{{
		name: "nonmonotonic-send",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{NonmonotonicSend},
		ops:  []int64{0, 1},
	}, {
		name: "nonmonotonic-send ignores other processes",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "send", snd(1, 10, 0))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{NonmonotonicSend},
	}, {
		name: "an info send may land after later sends",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, info, "send", snd(1, 11, histories.NoOffset))
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{NonmonotonicSend},
	}, {
		// Jepsen's realtime-lag ending: a later info send that reads place
		// before the process's acknowledged send is out of order too.
		name: "an info send read before an earlier ok send",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(0, info, "send", snd(1, 10, histories.NoOffset))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, info, "send", snd(1, 11, histories.NoOffset))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{NonmonotonicSend},
		ops:  []int64{0, 1},
	}, {
		// An info send that landed late does not become the position that
		// the process's next ok send is compared with.
		name: "an info send does not move the position",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			h.op(0, info, "send", snd(1, 12, histories.NoOffset))
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		want: []Anomaly{NonmonotonicSend},
	}, {
		// An info send that no read placed has no position to judge.
		name: "an unread info send is not compared",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(0, info, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.op(0, info, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 1, 11))
		},
		want: []Anomaly{NonmonotonicSend},
	}, {
		// Jepsen's nonmonotonic-send-test: an assign or subscribe (ok or
		// info) that no longer names the key forgets the send position.
		name: "an assign naming the key keeps its send position",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.keys(0, ok, "assign", 1, 2)
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.keys(0, ok, "assign", 2)
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{NonmonotonicSend},
		ops:  []int64{0, 2},
	}, {
		name: "a failed subscribe keeps the send position; an info one does not",
		bad: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.keys(0, fail, "subscribe", 2)
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, ok, "send", snd(1, 11, 1))
			h.keys(0, info, "subscribe", 2)
			h.op(0, ok, "send", snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{NonmonotonicSend},
	}, {
		name: "int-send-skip",
		bad: func(h *hist) {
			h.op(0, ok, "txn", snd(1, 10, 0), snd(1, 12, 2))
			h.op(1, ok, "send", snd(1, 11, 1))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 11, 2, 12))
		},
		good: func(h *hist) {
			h.op(0, ok, "txn", snd(1, 10, 0), snd(1, 12, 1))
			h.op(1, ok, "send", snd(1, 11, 2))
			h.op(2, ok, "poll", pl(1, 0, 10, 1, 12, 2, 11))
		},
		want: []Anomaly{IntSendSkip},
		ops:  []int64{0},
	}, {
		name: "int-nonmonotonic-send",
		bad: func(h *hist) {
			h.op(0, ok, "txn", snd(1, 11, 1), snd(1, 10, 0))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, ok, "txn", snd(1, 10, 0), snd(1, 11, 1))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{IntNonmonotonicSend},
		ops:  []int64{0},
	}, {
		name: "int-send order is judged from the version order when offsets are unknown",
		bad: func(h *hist) {
			h.op(0, info, "txn", snd(1, 11, histories.NoOffset), snd(1, 10, histories.NoOffset))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		good: func(h *hist) {
			h.op(0, info, "txn", snd(1, 10, histories.NoOffset), snd(1, 11, histories.NoOffset))
			h.op(1, ok, "poll", pl(1, 0, 10, 1, 11))
		},
		want: []Anomaly{IntNonmonotonicSend},
	}})
}
