package explore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

func TestDrawStaysInItsSpaceAndRepeats(t *testing.T) {
	gs := GenSpace("embedded")
	for _, sp := range []Space{SpaceSafe, SpaceWeak} {
		for i := range 20 {
			s, err := Draw(gs, sp, 3, i)
			if err != nil {
				t.Fatal(err)
			}
			p := s.Producer.ProducerConfig
			safe := p.Idempotent() && p.Acks == model.AcksAll
			c := s.Consumer.CommitStrategy
			if sp == SpaceSafe && !safe || sp == SpaceWeak && safe && c != model.CommitAuto && c != model.CommitBeforeProcessing {
				t.Errorf("%s draw %d: %s", sp, i, ConfigOf(s))
			}
			if len(s.Nemesis) == 0 {
				t.Errorf("%s draw %d has no fault", sp, i)
			}
			again, _ := Draw(gs, sp, 3, i)
			if again.Name != s.Name {
				t.Errorf("%s draw %d: %s then %s", sp, i, s.Name, again.Name)
			}
		}
	}
	if _, err := ParseSpace("strong"); err == nil {
		t.Error("space strong accepted")
	}
}

// A campaign stops at the first violating draw, counts what it drew, and
// shrinks the violation into OutDir.
func TestCampaignStopsAtAViolationAndShrinksIt(t *testing.T) {
	draws := 0
	judge := func(_ context.Context, s generators.Scenario) (Verdict, error) {
		draws++
		return Verdict{Violated: draws >= 3 && s.Workload.Producers > 0, FaultsFired: 2, Expected: "exactly-once",
			Observed: "at-least-once", Anomalies: []string{"duplicate"}}, nil
	}
	var prog strings.Builder
	out := filepath.Join(t.TempDir(), "shrink")
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceWeak, Seed: 1, Duration: time.Minute, Judge: judge,
		K: 2, Shrink: true, OutDir: out, Progress: &prog}
	rep, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Draws != 3 || rep.Found == nil || rep.Found.Draw != 2 || rep.FaultsFired != 6 {
		t.Fatalf("draws %d, found %+v, fired %d: want a violation at draw 2 of 3, 6 fired", rep.Draws, rep.Found, rep.FaultsFired)
	}
	if v, _, _ := rep.Coverage.Visited(); v == 0 {
		t.Error("coverage is empty")
	}
	if !strings.Contains(prog.String(), "draws 3  faults fired 6  violations 1") {
		t.Errorf("progress:\n%s", prog.String())
	}
	if rep.Shrunk == nil || len(rep.Shrunk.Scenario.Nemesis) != 0 || rep.Shrunk.Scenario.Workload.Producers != 1 {
		t.Errorf("shrunk to %+v, want no faults and one producer", rep.Shrunk)
	}
	min, err := generators.Load(filepath.Join(out, "minimal.json"))
	if err != nil || min.Workload.Producers != 1 {
		t.Errorf("minimal.json: %v, producers %d", err, min.Workload.Producers)
	}
	log, err := os.ReadFile(filepath.Join(out, "shrink.log"))
	if err != nil || !strings.Contains(string(log), "k=2") || !strings.Contains(string(log), "minimal: 0 fault steps") {
		t.Errorf("shrink.log: %v\n%s", err, log)
	}
}

func TestCampaignEndsWithItsDuration(t *testing.T) {
	judge := func(context.Context, generators.Scenario) (Verdict, error) {
		time.Sleep(20 * time.Millisecond)
		return Verdict{}, nil
	}
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceAll, Seed: 1, Duration: 100 * time.Millisecond, Judge: judge}
	rep, err := c.Run(context.Background())
	if err != nil || rep.Found != nil || rep.Draws < 2 || rep.Draws > 6 {
		t.Errorf("draws %d, found %v, err %v: want 2-6 draws and no violation", rep.Draws, rep.Found, err)
	}
}

// On a terminal the progress line is rewritten in place, and ended once
// the draws are over.
func TestCampaignProgressOnATerminal(t *testing.T) {
	n := 0
	judge := func(context.Context, generators.Scenario) (Verdict, error) {
		n++
		return Verdict{Violated: n == 2, FaultsFired: 1}, nil
	}
	var prog strings.Builder
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceAll, Seed: 1, Duration: time.Minute, Judge: judge, Progress: &prog, TTY: true}
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := prog.String()
	if strings.Count(got, "\r") != 2 || strings.Count(got, "\n") != 1 || !strings.Contains(got, "draws 2  faults fired 2  violations 1  not live 0") ||
		!strings.HasSuffix(got, "\033[K\n") {
		t.Errorf("terminal progress %q: want two rewrites of one line, ended once", got)
	}
}

// A campaign on a shared cluster counts the clusters its draws started,
// and its summary, as a line and as JSON, names them and the draws per
// cluster.
func TestCampaignCountsClustersStarted(t *testing.T) {
	draws := 0
	judge := func(context.Context, generators.Scenario) (Verdict, error) {
		draws++
		if draws == 6 {
			return Verdict{Violated: true}, nil
		}
		return Verdict{}, nil
	}
	clusters := func() int { return 1 + draws/4 } // a second cluster from the fourth draw on
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceAll, Seed: 1, Duration: time.Minute, Judge: judge, Clusters: clusters}
	rep, err := c.Run(context.Background())
	if err != nil || rep.Draws != 6 || rep.Clusters != 2 {
		t.Fatalf("draws %d, clusters %d, err %v: want 6 draws on 2 clusters", rep.Draws, rep.Clusters, err)
	}
	if line := rep.Summary().String(); !strings.Contains(line, "6 draws in") || !strings.HasSuffix(line, ", 2 clusters started (3.0 draws per cluster)") {
		t.Errorf("summary line %q: want the clusters started and draws per cluster", line)
	}
	b, _ := json.Marshal(rep.Summary())
	if !strings.Contains(string(b), `"clusters-started":2,"draws-per-cluster":3`) {
		t.Errorf("summary JSON %s: want the clusters started and draws per cluster", b)
	}
	if line := (Report{Draws: 3}).Summary().String(); strings.Contains(line, "cluster") {
		t.Errorf("summary line %q names clusters it did not count", line)
	}
}

// A draw that held but was not live does not end the campaign: it is
// listed with why, counted in the summary, and its directory kept.
func TestCampaignListsDrawsNotLiveAndGoesOn(t *testing.T) {
	draws := 0
	judge := func(context.Context, generators.Scenario) (Verdict, error) {
		draws++
		switch draws {
		case 2:
			return Verdict{NotLive: "unhealthy 2m0s after the heal of power-loss: in/0 has ISR [3] of replicas [3 1]", Dir: "runs/x"}, nil
		case 4:
			return Verdict{Violated: true}, nil
		}
		return Verdict{}, nil
	}
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceAll, Seed: 1, Duration: time.Minute, Judge: judge}
	rep, err := c.Run(context.Background())
	if err != nil || rep.Draws != 4 || rep.Found == nil || len(rep.NotLive) != 1 || rep.NotLive[0].Draw != 1 || rep.NotLive[0].Verdict.Dir != "runs/x" {
		t.Fatalf("draws %d, found %v, not live %+v, err %v: want 4 draws, the second not live", rep.Draws, rep.Found, rep.NotLive, err)
	}
	if line := rep.Summary().String(); !strings.Contains(line, "0 harness errors, 1 not live") {
		t.Errorf("summary line %q: want the draw not live counted", line)
	}
}

// A campaign's client runs every draw's roles it can play; the others stay
// librdkafka, named in the scenario (the java consumers cannot play the
// transactional strategy, the copiers' own).
func TestCampaignClientIsEveryDrawsClient(t *testing.T) {
	var seen []generators.Scenario
	judge := func(_ context.Context, s generators.Scenario) (Verdict, error) {
		seen = append(seen, s)
		return Verdict{}, nil
	}
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceAll, Seed: 3, Draws: 12, Client: "java", Judge: judge}
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 12 {
		t.Fatalf("%d draws judged, want 12", len(seen))
	}
	kept := 0
	for _, s := range seen {
		if s.Client != generators.ClientJava {
			t.Fatalf("draw %s runs client %q, want java", s.Name, s.Client)
		}
		for role, client := range s.Clients {
			if client != generators.ClientLibrdkafka || role == generators.RoleProducer {
				t.Errorf("draw %s: role %s runs %s", s.Name, role, client)
			}
			kept++
		}
	}
	if kept == 0 {
		t.Error("no draw kept a role on librdkafka: the draws never had a role java cannot play")
	}
	c.Client = "kafka-streams"
	if _, err := c.Run(context.Background()); err == nil {
		t.Error("a campaign of an unknown client ran")
	}
}

// Draws judged side by side: Parallel of them run at once, and the report
// is the one of a campaign judging one at a time (the draws after the
// first violation are not counted, whatever order the runs end in).
func TestCampaignJudgesDrawsSideBySide(t *testing.T) {
	const parallel, violating = 3, 7
	sequential := reportOf(t, 1, violating)
	var running, most atomic.Int64
	rep := reportOf(t, parallel, violating, func() {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond)
	})
	if most.Load() != parallel {
		t.Errorf("at most %d draws ran at once, want %d", most.Load(), parallel)
	}
	if rep.Draws != violating+1 || rep.Found == nil || rep.Found.Draw != violating {
		t.Fatalf("draws %d, found %+v: want %d draws ending with the violation at draw %d", rep.Draws, rep.Found, violating+1, violating)
	}
	a, _ := json.Marshal(sequential.Drawn)
	b, _ := json.Marshal(rep.Drawn)
	if string(a) != string(b) || rep.FaultsFired != sequential.FaultsFired || rep.Simulated != sequential.Simulated {
		t.Errorf("side by side:\n%s\n%d fired, %s simulated\none at a time:\n%s\n%d fired, %s simulated",
			b, rep.FaultsFired, rep.Simulated, a, sequential.FaultsFired, sequential.Simulated)
	}
}

// A slow draw holds back the count, not the judging: while draw 0 is
// judged, the other place judges the draws after it.
func TestCampaignJudgesPastASlowDraw(t *testing.T) {
	const draws, after = 12, 8
	var others atomic.Int64
	judgedAfter := make(chan struct{})
	judge := func(_ context.Context, s generators.Scenario) (Verdict, error) {
		i, err := drawIndex(s)
		switch {
		case err != nil:
			return Verdict{}, err
		case i > 0:
			if others.Add(1) == after {
				close(judgedAfter)
			}
			return Verdict{}, nil
		}
		select {
		case <-judgedAfter:
			return Verdict{}, nil
		case <-time.After(10 * time.Second):
			return Verdict{}, fmt.Errorf("%d draws judged while draw 0 was, want %d", others.Load(), after)
		}
	}
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceWeak, Seed: 1, Draws: draws, Judge: judge, Parallel: 2}
	rep, err := c.Run(context.Background())
	if err != nil || rep.Draws != draws || rep.Errors != 0 {
		t.Fatalf("draws %d, harness errors %d (%v), err %v: want %d draws and none", rep.Draws, rep.Errors, rep.LastError, err, draws)
	}
}

// reportOf runs a campaign of seed 1 judging parallel draws at once, the
// draw with index violating (and only it) violating its claim; each run
// calls during, if given, and simulates one second per fault step.
func reportOf(t *testing.T, parallel, violating int, during ...func()) Report {
	t.Helper()
	judge := func(_ context.Context, s generators.Scenario) (Verdict, error) {
		for _, f := range during {
			f()
		}
		i, err := drawIndex(s)
		if err != nil {
			return Verdict{}, err
		}
		if i > violating {
			time.Sleep(time.Duration(10*(violating+parallel-i)) * time.Millisecond) // end before the violating draw
		}
		return Verdict{Violated: i == violating, FaultsFired: 1, Simulated: time.Duration(len(s.Nemesis)) * time.Second}, nil
	}
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceWeak, Seed: 1, Duration: time.Minute, Judge: judge, Parallel: parallel}
	rep, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// drawIndex is the index of s among the first draws of seed 1.
func drawIndex(s generators.Scenario) (int, error) {
	for i := range 50 {
		d, err := Draw(GenSpace("embedded"), SpaceWeak, 1, i)
		if err != nil || d.Name == s.Name {
			return i, err
		}
	}
	return 0, fmt.Errorf("%s is none of the first draws of seed 1", s.Name)
}

func TestSummaryLineSaysSimulatedSecondsPerWallSecond(t *testing.T) {
	s := Report{Draws: 50, Elapsed: 2 * time.Second, Simulated: 400 * time.Second}.Summary()
	if got := s.String(); !strings.HasSuffix(got, ", 1500 draws a minute, 200 simulated seconds per wall second") {
		t.Errorf("summary line %q", got)
	}
	if got := (Report{Draws: 50, Elapsed: 2 * time.Second}).Summary().String(); strings.Contains(got, "simulated") {
		t.Errorf("summary line of a real cluster's campaign %q", got)
	}
}

// The draws' late requests add up in the summary, by API and answer, and
// each draw keeps its own; a campaign without any says nothing of them.
func TestCampaignCountsLateRequests(t *testing.T) {
	draws := 0
	judge := func(context.Context, generators.Scenario) (Verdict, error) {
		draws++
		switch draws {
		case 2:
			return Verdict{LateRequests: map[string]int64{"Produce accepted": 1, "Produce unanswered": 2}}, nil
		case 3:
			return Verdict{LateRequests: map[string]int64{"Produce unanswered": 1, "EndTxn INVALID_TXN_STATE": 1}}, nil
		}
		return Verdict{}, nil
	}
	rep, err := Campaign{Gen: GenSpace("embedded"), Space: SpaceAll, Seed: 1, Draws: 4, Judge: judge}.Run(context.Background())
	if err != nil || rep.Draws != 4 {
		t.Fatalf("draws %d, err %v", rep.Draws, err)
	}
	want := "; requests unanswered when their transaction ended: EndTxn INVALID_TXN_STATE 1, Produce accepted 1, Produce unanswered 3"
	if line := rep.Summary().String(); !strings.HasSuffix(line, want) {
		t.Errorf("summary line %q\nwant it to end %q", line, want)
	}
	if got := rep.Drawn[1].LateRequests["Produce unanswered"]; got != 2 {
		t.Errorf("draw 1 lists %d unanswered produce requests, want 2", got)
	}
	merged := mergeSummaries([]Output{{Summary: rep.Summary()}, {Summary: rep.Summary()}})
	if got := merged.LateRequests["Produce unanswered"]; got != 6 {
		t.Errorf("two shards' summaries merged: %d unanswered produce requests, want 6", got)
	}
	if line := (Report{Draws: 3}).Summary().String(); strings.Contains(line, "unanswered") {
		t.Errorf("summary line %q names late requests there were none of", line)
	}
}

// A campaign whose draws all fail stops after allFailedAfter of them with
// the last error, rather than failing as fast as it can until its duration
// is over; one draw that ran lets it go on.
func TestCampaignWhoseDrawsAllFailStops(t *testing.T) {
	broken := errors.New("kafka jars not found")
	judge := func(context.Context, generators.Scenario) (Verdict, error) { return Verdict{}, broken }
	c := Campaign{Gen: GenSpace("embedded"), Space: SpaceAll, Seed: 1, Duration: time.Hour, Judge: judge}
	rep, err := c.Run(context.Background())
	if !errors.Is(err, broken) || rep.Draws != allFailedAfter || rep.Errors != allFailedAfter {
		t.Fatalf("draws %d, errors %d, err %v: want the campaign stopped after %d failed draws with the last error", rep.Draws, rep.Errors, err, allFailedAfter)
	}

	draws := 0
	judge = func(context.Context, generators.Scenario) (Verdict, error) {
		draws++
		if draws == allFailedAfter {
			return Verdict{}, nil
		}
		return Verdict{}, broken
	}
	c.Judge, c.Duration, c.Draws = judge, 0, 2*allFailedAfter
	rep, err = c.Run(context.Background())
	if err != nil || rep.Draws != 2*allFailedAfter || rep.Errors != 2*allFailedAfter-1 {
		t.Errorf("draws %d, errors %d, err %v: one draw that ran should let the campaign go on", rep.Draws, rep.Errors, err)
	}
}
