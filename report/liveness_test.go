package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// liveResults is a clean run's results.json whose liveness says live; a
// stall in the kill window, a recovery and a worst lag.
const liveResults = `{"valid":true,"anomaly-types":[],"anomalies":{},"guarantee-held":true,"live":true,
	"liveness":{"live":true,"kinds":[
	  {"kind":"send","ok":3,"max-unavailable":{"ns":3500000000,"from-ns":2000000000,"to-ns":5500000000,"overlaps-fault":true},
	   "max-unavailable-during-faults":{"ns":3500000000,"from-ns":2000000000,"to-ns":5500000000,"overlaps-fault":true},
	   "max-unavailable-after-heal":{"ns":500000000,"from-ns":5000000000,"to-ns":5500000000,"overlaps-fault":false},"recovery-ns":500000000}],
	 "faults":[{"fault":"kill","from-ns":2500000000,"to-ns":5000000000,"ok":{"send":0}}],
	 "stalls":[{"fault":"kill","from-ns":2500000000,"to-ns":5000000000,"kind":"send","ok-before":3}],
	 "last-heal-ns":5000000000,
	 "worst-realtime-lag":{"ns":800000000,"key":1,"value":11,"send-op":0,"read-op":1}}}`

func TestLiveRunShowsAvailabilityAndIsNotMarked(t *testing.T) {
	page := renderResults(t, liveResults)
	if class, _, word := pageVerdict(t, page); class != "ok" || word != "VALID" {
		t.Fatalf("verdict %s %s", class, word)
	}
	if strings.Contains(page, "NOT LIVE") {
		t.Fatal("a live run is marked NOT LIVE")
	}
	l := strings.Index(page, `<section id="liveness">`)
	if l < 0 {
		t.Fatal("no liveness section")
	}
	for _, want := range []string{
		`<tr class="kind"><td>send</td><td class="num">3</td><td class="num">3.50 s (2.00 s – 5.50 s)</td><td class="num">3.50 s (2.00 s – 5.50 s)</td><td class="num">500 ms (5.00 s – 5.50 s)</td><td class="num">500 ms</td></tr>`,
		`<tr class="fault stall"><td>kill</td><td class="num">2.50 s</td><td class="num">5.00 s</td><td class="num">send 0</td><td>send</td></tr>`,
		`the last fault ended at 5.00 s`,
		`Worst realtime lag: <b>800 ms</b> from the ok of op <a href="#op-0" class="oplink">0</a>, which sent 11 to key 1, to op <a href="#op-1" class="oplink">1</a>`,
		`<a href="#liveness">1 stall in fault windows</a>`,
	} {
		if !strings.Contains(page[l:], want) && !strings.Contains(page, want) {
			t.Fatalf("page lacks %s\n%s", want, page[l:l+3000])
		}
	}
	if strings.Contains(page, "Client hangs</h3>") {
		t.Fatal("a client-hangs table without hangs")
	}
}

func TestNeverRecoveredRunIsNotLiveButStillValid(t *testing.T) {
	page := renderResults(t, `{"valid":true,"anomaly-types":[],"anomalies":{},"guarantee-held":true,"live":false,
	"liveness":{"live":false,"kinds":[
	  {"kind":"send","ok":1,"max-unavailable":{"ns":6000000000,"from-ns":0,"to-ns":6000000000,"overlaps-fault":true},"never-recovered":true},
	  {"kind":"poll","ok":4,"recovery-ns":20000000}],
	 "faults":[{"fault":"kill","from-ns":1000000000,"to-ns":2000000000,"ok":{"send":0,"poll":2}}],"last-heal-ns":2000000000}}`)
	class, valid, word := pageVerdict(t, page)
	if class != "ok" || valid != "true" || word != "VALID" {
		t.Fatalf("the safety verdict changed: %s / %s / %s", class, valid, word)
	}
	if !strings.Contains(page, `<title>✔ VALID · NOT LIVE ·`) {
		t.Fatal("the title does not say NOT LIVE")
	}
	v := strings.Index(page, `id="not-live"`)
	if v < 0 || v > strings.Index(page, `<section id="liveness">`) ||
		!strings.Contains(page[v:], `NOT LIVE</a>: the cluster never recovered after the last heal: send ops were invoked for 10s or more after it and none succeeded before the history ended`) {
		t.Fatal("the verdict does not say NOT LIVE, naming send")
	}
	if !strings.Contains(page, `<tr class="kind never"><td>send</td>`) || !strings.Contains(page, `<td class="num">never</td>`) {
		t.Fatal("the send row is not marked never recovered")
	}
}

// A heal after which the cluster stayed unhealthy makes the run NOT LIVE,
// naming the fault, the wait and what stayed broken; the guarantee's
// verdict is untouched.
func TestClusterNotRecoveredIsNotLiveNamingWhatStayedBroken(t *testing.T) {
	page := renderResults(t, `{"valid":true,"anomaly-types":[],"anomalies":{},"guarantee-held":true,"live":false,
	"liveness":{"live":false,"kinds":[{"kind":"send","ok":4,"recovery-ns":20000000}],
	 "faults":[{"fault":"power-loss","from-ns":1000000000,"to-ns":2000000000,"ok":{"send":0}}],"last-heal-ns":2000000000,
	 "not-recovered":[{"index":7,"fault":"power-loss","at-ns":2000000000,"waited":"2m0s","unhealthy":"in/0 has ISR [3] of replicas [3 1]"}]}}`)
	if class, valid, word := pageVerdict(t, page); class != "ok" || valid != "true" || word != "VALID" {
		t.Fatalf("the safety verdict changed: %s / %s / %s", class, valid, word)
	}
	want := `NOT LIVE</a>: the cluster stayed unhealthy 2m0s after the heal of power-loss at 2.00 s (op 7): in/0 has ISR [3] of replicas [3 1]`
	if v := strings.Index(page, `id="not-live"`); v < 0 || !strings.Contains(page[v:], want) {
		t.Fatalf("the verdict does not say what stayed broken:\n%s", page[max(v, 0):max(v, 0)+600])
	}
}

// The runs index names a run that never recovered beside its verdict.
func TestRunsIndexSaysNotLive(t *testing.T) {
	for _, c := range []struct {
		live bool
		want bool
	}{{true, false}, {false, true}} {
		runs := t.TempDir()
		dir := filepath.Join(runs, "TestChaosA", "20250101T000000Z")
		writeRun(t, dir, `{"valid":true,"anomaly-types":[],"guarantee-held":true,"liveness":{"live":`+map[bool]string{true: "true", false: "false"}[c.live]+`}}`)
		list, err := listRuns(runs)
		if err != nil || len(list) != 1 {
			t.Fatalf("listRuns: %v %v", list, err)
		}
		if got := list[0].NotLive != nil && list[0].NotLive.Word == "NOT LIVE"; got != c.want {
			t.Fatalf("live %v: index entry %+v", c.live, list[0])
		}
	}
}

// writeRun makes dir a run directory with an empty history and results.
func writeRun(t *testing.T, dir, results string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{HistoryFile: "", ResultsFile: results} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Without a workload read there is no lag to show: the page says "-" and
// why, rather than leaving the figure out or timing the final reads.
func TestNoWorkloadReadLagIsADash(t *testing.T) {
	page := renderResults(t, `{"valid":true,"anomaly-types":[],"anomalies":{},"guarantee-held":true,"live":true,
	"liveness":{"live":true,"kinds":[{"kind":"send","ok":3}]}}`)
	want := `Worst realtime lag: <b>-</b>: no ok workload op read an acknowledged value (the final reads are the harness's and do not count).`
	if !strings.Contains(page, want) {
		i := strings.Index(page, "Worst realtime lag")
		t.Fatalf("page lacks %s\n%s", want, page[max(i, 0):max(i, 0)+300])
	}
}
