package report

import (
	"bufio"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/kafkachaos/kafkachaos/checkers"
)

// synthEvent is one line of a synthetic history before indexes are known.
type synthEvent struct {
	Index   int64  `json:"index"`
	Time    int64  `json:"time"`
	Process int64  `json:"process"`
	Type    string `json:"type"`
	F       string `json:"f"`
	Value   any    `json:"value,omitempty"`
	Error   string `json:"error,omitempty"`
}

// synth writes a run directory with a synthetic history of about n ops:
// producers and consumers on four keys, a broker kill every tenth of the
// run, and four planted anomalies (lost-write, inconsistent-offsets,
// duplicate, unseen) whose cases go to results.json.
func synth(t testing.TB, dir string, n int, seed int64) runResults {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	const procs, keys = 8, 4
	logs := make([][]int64, keys)
	pos := make([][keys]int, procs)
	free := make([]int64, procs)
	var evs []*synthEvent
	var clock, nextVal int64
	add := func(e synthEvent) *synthEvent { evs = append(evs, &e); return &e }
	type plant struct {
		a      checkers.Anomaly
		key    int64
		val    int64
		offs   []int64
		send   *synthEvent
		reader *synthEvent
	}
	var plants []*plant
	pending := map[int64]*plant{} // planted offset on key 0 -> its plant, until a poll reads it
	faultEvery, inFault := int64(n/20+1), false
	for step := int64(0); step < int64(n/2); step++ {
		clock += rng.Int63n(40_000)
		if step%faultEvery == faultEvery-1 {
			f := "kill"
			if inFault {
				f = "restart"
			}
			inFault = !inFault
			add(synthEvent{Time: clock, Process: -1, Type: "invoke", F: f, Value: map[string]any{"nodes": []int{2}}})
			add(synthEvent{Time: clock + 1000, Process: -1, Type: "info", F: f, Value: map[string]any{"nodes": []int{2}}})
		}
		p := int64(0) // the process idle longest goes next
		for q := range int64(procs) {
			if free[q] < free[p] {
				p = q
			}
		}
		t0 := max(clock, free[p])
		clock = t0
		lat := int64(200_000 + rng.ExpFloat64()*1_500_000)
		if inFault {
			lat *= 8
		}
		t1 := t0 + lat
		free[p] = t1 + 1
		if p < procs/2 { // producer
			k := rng.Int63n(keys)
			nextVal++
			v := nextVal
			add(synthEvent{Time: t0, Process: p, Type: "invoke", F: "send", Value: []any{map[string]any{"f": "send", "key": k, "value": v}}})
			typ := "ok"
			if inFault && rng.Intn(4) == 0 {
				typ = []string{"fail", "info"}[rng.Intn(2)]
			}
			if typ != "ok" {
				add(synthEvent{Time: t1, Process: p, Type: typ, F: "send", Value: []any{map[string]any{"f": "send", "key": k, "value": v}}, Error: "timeout"})
				continue
			}
			off := int64(len(logs[k]))
			var pl *plant
			switch {
			case k == 0 && step >= int64(n/5) && len(plants) == 0: // lost: acked at an offset the next value takes
				pl = &plant{a: checkers.LostWrite, key: k, val: v, offs: []int64{off}}
				pending[off] = pl
				plants = append(plants, pl, &plant{a: checkers.InconsistentOffsets, key: k, offs: []int64{off}})
			case k == 0 && step > int64(n/3) && len(plants) == 2: // retried send stored twice
				logs[k] = append(logs[k], v)
				off++
				pl = &plant{a: checkers.Duplicate, key: k, val: v, offs: []int64{off - 1, off}}
				pending[off] = pl
				plants = append(plants, pl)
				logs[k] = append(logs[k], v)
			default:
				logs[k] = append(logs[k], v)
			}
			e := add(synthEvent{Time: t1, Process: p, Type: "ok", F: "send", Value: []any{map[string]any{"f": "send", "key": k, "value": v, "offset": off}}})
			if pl != nil {
				pl.send = e
				if pl.a == checkers.LostWrite {
					plants[len(plants)-1].send = e
				}
			}
			continue
		}
		recs := map[string][][2]int64{}
		var read []int64
		for k := range keys {
			for c := 0; c < 3 && pos[p][k] < len(logs[k]); c++ {
				o := pos[p][k]
				recs[itoa(k)] = append(recs[itoa(k)], [2]int64{int64(o), logs[k][o]})
				pos[p][k]++
				if k == 0 {
					read = append(read, int64(o))
				}
			}
		}
		add(synthEvent{Time: t0, Process: p, Type: "invoke", F: "poll", Value: []any{map[string]any{"f": "poll"}}})
		e := add(synthEvent{Time: t1, Process: p, Type: "ok", F: "poll", Value: []any{map[string]any{"f": "poll", "records": recs}}})
		for _, o := range read {
			if pl := pending[o]; pl != nil {
				pl.reader = e
				if pl.a == checkers.LostWrite {
					plants[1].reader = e
				}
				delete(pending, o)
			}
		}
	}
	// An acknowledged send to a key nobody polls: unseen.
	clock = slices.Max(free) + 1_000_000
	nextVal++
	add(synthEvent{Time: clock, Process: 0, Type: "invoke", F: "send", Value: []any{map[string]any{"f": "send", "key": 9, "value": nextVal}}})
	us := add(synthEvent{Time: clock + 500_000, Process: 0, Type: "ok", F: "send", Value: []any{map[string]any{"f": "send", "key": 9, "value": nextVal, "offset": 0}}})
	plants = append(plants, &plant{a: checkers.Unseen, key: 9, val: nextVal, offs: []int64{0}, send: us})

	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time < evs[j].Time })
	f, err := os.Create(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i, e := range evs {
		e.Index = int64(i)
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	res := runResults{Expected: "at-least-once", Observed: "none"}
	res.Anomalies = map[checkers.Anomaly][]checkers.Case{}
	for _, pl := range plants {
		c := checkers.Case{Key: ptr(pl.key), Offsets: pl.offs, Explanation: explain(pl.a)}
		if pl.a != checkers.InconsistentOffsets {
			c.Value = ptr(pl.val)
		}
		if pl.send != nil {
			c.Ops = append(c.Ops, pl.send.Index)
		}
		if pl.reader != nil {
			c.Ops = append(c.Ops, pl.reader.Index)
		}
		res.Anomalies[pl.a] = append(res.Anomalies[pl.a], c)
	}
	res.AnomalyTypes = []checkers.Anomaly{checkers.LostWrite, checkers.Duplicate, checkers.InconsistentOffsets, checkers.Unseen}
	res.Stats = checkers.Stats{Ops: int64(len(evs)), Keys: keys + 1}
	writeJSON(t, filepath.Join(dir, ResultsFile), res)
	writeJSON(t, filepath.Join(dir, ScenarioFile), map[string]any{
		"cluster": "embedded", "versions": map[string]string{"kafka": "4.4.0", "librdkafka": "2.11.1"},
		"client-config": map[string]any{"acks": "all", "enable.idempotence": false, "enable.auto.commit": false},
		"seed":          seed, "replay": "go test -run TestChaosSynthetic -seed " + itoa(int(seed)),
	})
	return res
}

func explain(a checkers.Anomaly) string {
	return map[checkers.Anomaly]string{
		checkers.LostWrite:           "acknowledged at this offset, yet a poll read past it and no ok op ever read the value",
		checkers.InconsistentOffsets: "the producer's ack and a poll disagree on the value at this offset",
		checkers.Duplicate:           "the value is stored at two offsets (a retried send)",
		checkers.Unseen:              "acknowledged, and never read even by the final reads",
	}[a]
}

func ptr(v int64) *int64 { return &v }

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
