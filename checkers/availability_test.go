package checkers

import (
	"encoding/json"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/kafkachaos/kafkachaos/histories"
)

const ms = int64(1e6)

// at sets the time of the op appended last, in milliseconds.
func (h *hist) at(t int64) { h.last().Time = t * ms }

// nem appends a nemesis op with f and value v at t ms.
func (h *hist) nem(t int64, f, v string) {
	h.op(histories.NemesisProcess, info, f)
	h.last().Value = json.RawMessage(v)
	h.at(t)
}

const (
	killStart = `{"fault":"kill","health":{"when":"before","healthy":true}}`
	killStop  = `{"fault":"kill","health":{"when":"after","healthy":true}}`
)

// sends appends ok (or info) sends of key 1 at each time, one value each
// from v on, at offsets from o on.
func (h *hist) sends(t histories.Type, v, o int64, times ...int64) {
	for i, at := range times {
		off := o + int64(i)
		if t != ok {
			off = histories.NoOffset
		}
		h.op(0, t, "send", snd(1, v+int64(i), off))
		h.at(at)
	}
}

// emptyPolls appends ok polls that returned nothing at each time.
func (h *hist) emptyPolls(times ...int64) {
	for _, at := range times {
		h.op(9, ok, "poll", histories.Mop{F: histories.MPoll, Records: map[int64][]histories.Record{}})
		h.at(at)
	}
}

func liveness(t *testing.T, h *hist) *Liveness {
	t.Helper()
	l := check(t, h, Options{}).Liveness
	if l == nil {
		t.Fatal("no liveness section")
	}
	return l
}

func kind(t *testing.T, l *Liveness, k string) KindLiveness {
	t.Helper()
	for _, kl := range l.Kinds {
		if kl.Kind == k {
			return kl
		}
	}
	t.Fatalf("no %s in %+v", k, l.Kinds)
	return KindLiveness{}
}

func expectWindow(t *testing.T, name string, got *Window, from, to int64, faulted bool) {
	t.Helper()
	want := Window{Ns: (to - from) * ms, FromNs: from * ms, ToNs: to * ms, Faulted: faulted}
	if got == nil || *got != want {
		t.Fatalf("%s = %+v, want %+v", name, got, want)
	}
}

// killRun: sends succeed, stop while a node is killed (2500-5000 ms) and
// resume 500 ms after the heal; a consumer of key 1 reads two of the
// three acked values before the kill, polls nothing during it while the
// third waits, and reads it and the new ones after the heal.
func killRun(h *hist) {
	h.keys(9, ok, "assign", 1)
	h.at(0)
	h.sends(ok, 10, 0, 0, 1000, 2000)
	h.op(9, ok, "poll", pl(1, 0, 10, 1, 11))
	h.at(2200)
	h.nem(2500, "kill", killStart)
	h.sends(info, 20, 0, 3000, 4000)
	h.emptyPolls(3500)
	h.nem(5000, "restart", killStop)
	h.sends(ok, 30, 3, 5500, 6000)
	h.op(9, ok, "poll", pl(1, 2, 12, 3, 30, 4, 31))
	h.at(6100)
}

func TestUnavailabilityDuringAndAfterAFault(t *testing.T) {
	h := &hist{}
	killRun(h)
	l := liveness(t, h)
	s := kind(t, l, "send")
	expectWindow(t, "send max-unavailable", s.MaxUnavailable, 2000, 5500, true)
	expectWindow(t, "send during faults", s.DuringFaults, 2000, 5500, true)
	expectWindow(t, "send after heal", s.AfterHeal, 5000, 5500, false)
	if s.RecoveryNs == nil || *s.RecoveryNs != 500*ms || s.NeverRecovered || !l.Live {
		t.Fatalf("send recovery = %v, never %v, live %v; want 500 ms", s.RecoveryNs, s.NeverRecovered, l.Live)
	}
	if l.LastHealNs == nil || *l.LastHealNs != 5000*ms || l.Unhealed {
		t.Fatalf("last heal = %v, unhealed %v", l.LastHealNs, l.Unhealed)
	}
	// the poll that returned nothing during the kill, while an acked value
	// waited, is no progress
	want := []Stall{{Fault: "kill", FromNs: 2500 * ms, ToNs: 5000 * ms, Kind: "send", OKBefore: 3},
		{Fault: "kill", FromNs: 2500 * ms, ToNs: 5000 * ms, Kind: "poll", OKBefore: 1}}
	if !slices.Equal(l.Stalls, want) {
		t.Fatalf("stalls = %+v, want %+v", l.Stalls, want)
	}
	if len(l.Faults) != 1 || l.Faults[0].OK["send"] != 0 || l.Faults[0].OK["poll"] != 0 || l.Faults[0].Open {
		t.Fatalf("fault progress = %+v, want kill with 0 sends and 0 polls", l.Faults)
	}
	p := kind(t, l, "poll")
	expectWindow(t, "poll max-unavailable", p.MaxUnavailable, 2200, 6100, true)
	if p.OK != 2 || p.RecoveryNs == nil || *p.RecoveryNs != 1100*ms {
		t.Fatalf("poll = %+v: want 2 ok polls, recovery 1100 ms", p)
	}
}

// The same gap with no fault anywhere near it is unavailability, but not
// during faults, and there is nothing to recover from.
func TestUnavailabilityWithoutFaults(t *testing.T) {
	h := &hist{}
	h.sends(ok, 10, 0, 0, 1000, 2000)
	h.sends(info, 20, 0, 3000, 4000)
	h.sends(ok, 30, 3, 5500)
	l := liveness(t, h)
	s := kind(t, l, "send")
	expectWindow(t, "send max-unavailable", s.MaxUnavailable, 2000, 5500, false)
	if s.DuringFaults != nil || s.AfterHeal != nil || s.RecoveryNs != nil || l.LastHealNs != nil || len(l.Stalls) > 0 || len(l.Faults) > 0 {
		t.Fatalf("fault metrics without faults: %+v %+v", s, l)
	}
}

func TestNeverRecoveredIsNotLive(t *testing.T) {
	h := &hist{}
	killRun(h)
	h.ops = h.ops[:len(h.ops)-3] // drop the sends and the poll after the heal
	h.sends(info, 30, 0, 5500, 14500)
	if kind(t, liveness(t, h), "send").NeverRecovered {
		t.Fatal("never recovered after trying for 9.5 s of the 10 s it takes")
	}
	h.sends(info, 40, 0, 15001)
	l := liveness(t, h)
	s := kind(t, l, "send")
	if !s.NeverRecovered || s.RecoveryNs != nil || l.Live {
		t.Fatalf("send = %+v, live %v: want never recovered, not live", s, l.Live)
	}
	expectWindow(t, "send after heal", s.AfterHeal, 5000, 15001, false)
	if p := kind(t, l, "poll"); p.NeverRecovered || p.RecoveryNs != nil {
		t.Fatalf("poll, never run after the heal, = %+v", p)
	}
}

// A send invoked during the fault that only ended after the heal (flushed
// unacknowledged when the producer closed) was no attempt on the healed
// cluster: without a send invoked after the heal, there is no finding.
func TestOpInvokedBeforeTheHealIsNoRecoveryAttempt(t *testing.T) {
	for _, c := range []struct {
		name   string
		during bool // invoked during the fault, else after the heal
	}{{"invoked during the fault", true}, {"invoked after the heal", false}} {
		h := &hist{}
		h.sends(ok, 10, 0, 0, 1000)
		h.nem(2500, "kill", killStart)
		invoke := func(at int64) {
			h.op(0, histories.Invoke, "send", snd(1, 30, histories.NoOffset))
			h.at(at)
		}
		if c.during {
			invoke(4000)
		}
		h.nem(5000, "restart", killStop)
		if !c.during {
			invoke(15200)
		}
		h.op(0, info, "send", snd(1, 30, histories.NoOffset))
		h.at(16000)
		l := liveness(t, h)
		if s := kind(t, l, "send"); s.NeverRecovered == c.during || l.Live != c.during {
			t.Errorf("%s: send = %+v, live %v; want never recovered %v", c.name, s, l.Live, !c.during)
		}
	}
}

// A heal after which the cluster stayed unhealthy is not live, even when
// the workload's own ops recovered (the stuck partition may be none it
// used); deferred checks, healthy ones and a heal that failed (the
// harness's error) are none.
func TestClusterNotRecoveredAfterAHealIsNotLive(t *testing.T) {
	stuck := `{"fault":"kill","health":{"when":"after","healthy":false,"waited":"2m0s","unhealthy":"t/0 has ISR [3] of replicas [3 1]"}}`
	for _, c := range []struct {
		name, stop, err string
		want            bool
	}{
		{"stayed unhealthy", stuck, "", true},
		{"healthy", killStop, "", false},
		{"deferred", `{"fault":"kill","health":{"when":"after","healthy":false,"deferred":true,"active":["pause"]}}`, "", false},
		{"heal failed", stuck, "restart failed", false},
	} {
		h := &hist{}
		killRun(h)
		i := slices.IndexFunc(h.ops, func(o histories.Op) bool { return o.F == "restart" })
		h.ops[i].Value, h.ops[i].Error = json.RawMessage(c.stop), c.err
		l := liveness(t, h)
		if got := len(l.NotRecovered) == 1; got != c.want || l.Live == c.want {
			t.Errorf("%s: not recovered %+v, live %v; want finding %v", c.name, l.NotRecovered, l.Live, c.want)
			continue
		}
		if c.want && (l.NotRecovered[0].Fault != "kill" || l.NotRecovered[0].AtNs != 5000*ms ||
			l.NotRecovered[0].Unhealthy != "t/0 has ISR [3] of replicas [3 1]" || kind(t, l, "send").NeverRecovered) {
			t.Errorf("%s: %+v, want the kill's heal at 5 s with the short ISR", c.name, l.NotRecovered[0])
		}
	}
}

// A kind that stopped before the heal has nothing to recover.
func TestNoOpsAfterHealIsNotARecoveryFinding(t *testing.T) {
	h := &hist{}
	h.keys(9, ok, "assign", 1)
	h.sends(ok, 10, 0, 0, 1000)
	h.op(9, ok, "poll", pl(1, 0, 10, 1, 11))
	h.at(1100)
	h.nem(2500, "kill", killStart)
	h.nem(5000, "restart", killStop)
	h.emptyPolls(5200) // caught up: progress
	l := liveness(t, h)
	if s := kind(t, l, "send"); s.NeverRecovered || s.RecoveryNs != nil || !l.Live {
		t.Fatalf("send = %+v, live %v", s, l.Live)
	}
	if p := kind(t, l, "poll"); p.RecoveryNs == nil || *p.RecoveryNs != 200*ms {
		t.Fatalf("poll recovery = %v, want 200 ms", p.RecoveryNs)
	}
}

func TestStallNeedsASecondAndEarlierProgress(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(h *hist)
	}{
		{"short window", func(h *hist) {
			h.sends(ok, 10, 0, 0)
			h.nem(100, "pause", `{"fault":"pause","health":{"when":"before"}}`)
			h.nem(1099, "resume", `{"fault":"pause","health":{"when":"after"}}`)
			h.sends(ok, 20, 1, 1200)
		}},
		{"no progress before", func(h *hist) {
			h.sends(info, 10, 0, 0)
			h.nem(100, "pause", `{"fault":"pause","health":{"when":"before"}}`)
			h.nem(2100, "resume", `{"fault":"pause","health":{"when":"after"}}`)
			h.sends(ok, 20, 0, 2200)
		}},
		{"progress inside", func(h *hist) {
			h.sends(ok, 10, 0, 0)
			h.nem(100, "pause", `{"fault":"pause","health":{"when":"before"}}`)
			h.sends(ok, 20, 1, 2000)
			h.nem(2100, "resume", `{"fault":"pause","health":{"when":"after"}}`)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &hist{}
			c.build(h)
			if l := liveness(t, h); len(l.Stalls) > 0 || len(l.Faults) != 1 {
				t.Fatalf("stalls %+v, faults %+v", l.Stalls, l.Faults)
			}
		})
	}
}

// A start without a stop holds to the end of the history: no heal, no
// recovery, and a stall that lasts to the end.
func TestUnhealedFault(t *testing.T) {
	h := &hist{}
	h.sends(ok, 10, 0, 0)
	h.nem(100, "kill", killStart)
	h.sends(info, 20, 0, 500, 3000)
	l := liveness(t, h)
	if !l.Unhealed || l.LastHealNs != nil || !l.Live || len(l.Faults) != 1 || !l.Faults[0].Open || l.Faults[0].ToNs != 3000*ms {
		t.Fatalf("liveness = %+v", l)
	}
	if s := kind(t, l, "send"); s.RecoveryNs != nil || s.NeverRecovered || s.AfterHeal != nil {
		t.Fatalf("recovery measured without a heal: %+v", s)
	}
	if len(l.Stalls) != 1 || l.Stalls[0].ToNs != 3000*ms {
		t.Fatalf("stalls = %+v", l.Stalls)
	}
}

// An instantaneous fault (start op and a "-done" op at the runner's final
// heal) acts at its start: a gap holding that instant overlaps a fault,
// one that does not, does not; the heal is the instant.
func TestInstantaneousFault(t *testing.T) {
	crash := `{"fault":"crash-consumer","health":{"when":"before"}}`
	done := `{"fault":"crash-consumer","health":{"when":"after"}}`
	h := &hist{}
	h.sends(ok, 10, 0, 0, 1000, 3000, 3100, 5000)
	h.nem(2000, "crash-consumer", crash)
	h.sends(ok, 15, 5, 5100)
	h.nem(9000, "crash-consumer-done", done)
	l := liveness(t, h)
	s := kind(t, l, "send")
	expectWindow(t, "send max-unavailable", s.MaxUnavailable, 1000, 3000, true)
	if len(l.Faults) != 0 || l.LastHealNs == nil || *l.LastHealNs != 2000*ms {
		t.Fatalf("faults %+v, last heal %v: want no holding window, heal at 2000 ms", l.Faults, l.LastHealNs)
	}
	h = &hist{}
	h.sends(ok, 10, 0, 0, 1000, 2000, 3000, 3100, 5000)
	h.nem(3050, "crash-consumer", crash)
	h.nem(9000, "crash-consumer-done", done)
	s = kind(t, liveness(t, h), "send")
	expectWindow(t, "send max-unavailable", s.MaxUnavailable, 3100, 5000, false)
	expectWindow(t, "send during faults", s.DuringFaults, 3000, 3100, true)
}

// Ops without health are read by their f: kafkachaos' "-start"/"-stop" and
// Jepsen's "start-"/"stop-"; an f that says neither is an instant.
func TestFaultsWithoutHealth(t *testing.T) {
	for _, c := range []struct{ start, stop, value string }{
		{"partition-start", "partition-stop", `{"fault":"partition"}`},
		{"start-partition", "stop-partition", `null`},
	} {
		h := &hist{}
		h.sends(ok, 10, 0, 0)
		h.nem(100, c.start, c.value)
		h.sends(info, 20, 0, 500)
		h.nem(2000, c.stop, c.value)
		h.sends(ok, 30, 1, 2300)
		l := liveness(t, h)
		if len(l.Faults) != 1 || l.Faults[0].Fault != "partition" || l.Faults[0].FromNs != 100*ms || l.Faults[0].ToNs != 2000*ms || len(l.Stalls) != 1 {
			t.Fatalf("%s: faults %+v, stalls %+v", c.start, l.Faults, l.Stalls)
		}
	}
	h := &hist{}
	h.sends(ok, 10, 0, 0)
	h.nem(100, "bump-clock", `null`)
	if l := liveness(t, h); len(l.Faults) != 0 || l.LastHealNs == nil || *l.LastHealNs != 100*ms {
		t.Fatalf("instant op: faults %+v, last heal %v", l.Faults, l.LastHealNs)
	}
}

func TestWorstRealtimeLag(t *testing.T) {
	h := &hist{}
	h.op(0, ok, "send", snd(1, 10, 0))
	h.at(0)
	h.op(0, ok, "send", snd(1, 11, 1))
	h.at(100)
	h.op(2, ok, "poll", pl(1, 0, 10))
	h.at(300) // lag 300
	r := h.op(2, ok, "poll", pl(1, 0, 10, 1, 11))
	h.at(900) // 11: lag 800; 10 again is not its first read
	h.op(3, ok, "poll", pl(1, 0, 10, 1, 11))
	h.at(5000)
	l := liveness(t, h)
	want := RealtimeLag{Ns: 800 * ms, Key: 1, Value: 11, SendOp: 1, ReadOp: r}
	if l.WorstRealtimeLag == nil || *l.WorstRealtimeLag != want {
		t.Fatalf("worst lag = %+v, want %+v", l.WorstRealtimeLag, want)
	}
}

// A read that completed before the send's ok has no lag; neither has a
// value nobody read, nor a read of a failed op.
func TestNoRealtimeLag(t *testing.T) {
	h := &hist{}
	h.op(2, ok, "poll", pl(1, 0, 10))
	h.op(0, ok, "send", snd(1, 10, 0))
	h.op(0, ok, "send", snd(1, 11, 1))
	h.op(2, info, "poll", pl(1, 1, 11))
	h.op(3, ok, "poll", pl(1, 0, 10))
	if l := liveness(t, h); l.WorstRealtimeLag != nil {
		t.Fatalf("worst lag = %+v, want none", l.WorstRealtimeLag)
	}
}

// The sweep that judges gaps against fault spans agrees with judging every
// gap against every fault window.
func TestPropertyUnavailabilityMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := &hist{}
		now := int64(0)
		var okAt []int64
		var faults [][2]int64
		open := false
		for i := rapid.IntRange(1, 40).Draw(t, "ops"); i > 0; i-- {
			now += rapid.Int64Range(0, 2000).Draw(t, "dt")
			switch rapid.IntRange(0, 3).Draw(t, "what") {
			case 0:
				h.nem(now, map[bool]string{false: "kill", true: "restart"}[open], map[bool]string{false: killStart, true: killStop}[open])
				if open {
					faults[len(faults)-1][1] = now
				} else {
					faults = append(faults, [2]int64{now, -1})
				}
				open = !open
			case 1:
				h.sends(info, int64(len(h.ops))*10, 0, now)
			default:
				h.sends(ok, int64(len(h.ops))*10, int64(len(h.ops)), now)
				okAt = append(okAt, now)
			}
		}
		first, last := int64(-1), int64(0)
		for _, op := range h.ops {
			if op.Process >= 0 {
				last = op.Time / ms
				if first < 0 {
					first = last
				}
			}
		}
		if first < 0 {
			return
		}
		if open {
			faults[len(faults)-1][1] = now
		}
		bounds := append(append([]int64{first}, okAt...), max(last, first))
		var want, wantF int64
		for i := 1; i < len(bounds); i++ {
			a, b := bounds[i-1], bounds[i]
			want = max(want, b-a)
			if slices.ContainsFunc(faults, func(f [2]int64) bool { return f[0] <= b && f[1] >= a }) {
				wantF = max(wantF, b-a)
			}
		}
		res, err := Check(Ops(h.ops), Options{})
		if err != nil || res.Liveness == nil || len(res.Liveness.Kinds) != 1 {
			t.Fatalf("Check: %v, liveness %+v", err, res.Liveness)
		}
		s := res.Liveness.Kinds[0]
		if got := ns(s.MaxUnavailable); got != want*ms {
			t.Fatalf("max unavailable %d ns, want %d ms", got, want)
		}
		if got := ns(s.DuringFaults); got != wantF*ms {
			t.Fatalf("max unavailable during faults %d ns, want %d ms", got, wantF)
		}
	})
}

func ns(w *Window) int64 {
	if w == nil {
		return 0
	}
	return w.Ns
}

// groupPolls appends ok polls of group consumer 9 that returned m (nothing
// when m is empty) at each time.
func (h *hist) groupPolls(m []histories.Mop, times ...int64) {
	if len(m) == 0 {
		m = []histories.Mop{{F: histories.MPoll, Records: map[int64][]histories.Record{}}}
	}
	for _, at := range times {
		h.op(9, ok, "poll", m...)
		h.last().Group = "g"
		h.at(at)
	}
}

// A group consumer that, after the last heal, gets only empty polls while
// acknowledged records wait made no progress, however many of its polls
// returned ok; the final reads that find those records are the harness's.
func TestEmptyPollsWhileRecordsWaitAreNoProgress(t *testing.T) {
	h := &hist{}
	h.keys(9, ok, "subscribe", 1)
	h.last().Group = "g"
	h.at(0)
	h.sends(ok, 10, 0, 100, 200)
	h.groupPolls([]histories.Mop{pl(1, 0, 10, 1, 11)}, 300)
	h.nem(1000, "kill", killStart)
	h.nem(2000, "restart", killStop)
	h.sends(ok, 20, 2, 2100, 2200)
	h.groupPolls(nil, 2300, 2800, 3300, 3800, 4300, 4800, 5300, 8300, 12300)
	h.finalAssign(50, 1)
	h.at(12400)
	h.finalPoll(50, pl(1, 0, 10, 1, 11, 2, 20, 3, 21))
	h.at(12500)
	l := liveness(t, h)
	p := kind(t, l, "poll")
	if l.Live || !p.NeverRecovered || p.RecoveryNs != nil || p.OK != 1 {
		t.Fatalf("poll = %+v, live %v: want 1 ok poll (the one that delivered), never recovered, not live", p, l.Live)
	}
	expectWindow(t, "poll after heal", p.AfterHeal, 2000, 12300, false)
}

// With nothing waiting, an empty poll is a consumer caught up: progress.
func TestEmptyPollWhenCaughtUpIsProgress(t *testing.T) {
	h := &hist{}
	h.keys(9, ok, "subscribe", 1)
	h.last().Group = "g"
	h.at(0)
	h.sends(ok, 10, 0, 100, 200)
	h.groupPolls([]histories.Mop{pl(1, 0, 10, 1, 11)}, 300)
	h.nem(1000, "kill", killStart)
	h.nem(2000, "restart", killStop)
	h.groupPolls(nil, 2300, 2800)
	p := kind(t, liveness(t, h), "poll")
	if p.NeverRecovered || p.RecoveryNs == nil || *p.RecoveryNs != 300*ms || p.OK != 3 {
		t.Fatalf("poll = %+v: want 3 ok polls, recovered 300 ms after the heal", p)
	}
}

// The worst lag is the workload's: a value only the final reads returned
// has none, and a run without a workload reader reports no lag at all.
func TestFinalReadsHaveNoLag(t *testing.T) {
	h := &hist{}
	h.sends(ok, 10, 0, 0, 1000)
	h.finalAssign(50, 1)
	h.at(22000)
	h.finalPoll(50, pl(1, 0, 10, 1, 11))
	h.at(22100)
	if l := liveness(t, h); l.WorstRealtimeLag != nil {
		t.Fatalf("worst lag = %+v without a workload reader, want none", l.WorstRealtimeLag)
	}
	h = &hist{}
	h.sends(ok, 10, 0, 0, 1000)
	r := h.op(9, ok, "poll", pl(1, 0, 10))
	h.at(500)
	h.finalAssign(50, 1)
	h.at(22000)
	h.finalPoll(50, pl(1, 0, 10, 1, 11))
	h.at(22100)
	want := RealtimeLag{Ns: 500 * ms, Key: 1, Value: 10, SendOp: 0, ReadOp: r}
	if l := liveness(t, h); l.WorstRealtimeLag == nil || *l.WorstRealtimeLag != want {
		t.Fatalf("worst lag = %+v, want %+v (the workload's read, not the final reads')", l.WorstRealtimeLag, want)
	}
}
