package kafkachaos_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/local"
	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/report"
	"github.com/kafkachaos/kafkachaos/runner"
)

// Clock skew on real brokers (cluster/local: libfaketime preloaded into
// each broker JVM). The leader's wall clock runs an hour ahead for a
// window, then another broker's strobes 30 s behind and back every 3 s;
// each move counts only once a LogAppendTime probe of the broker read its
// clock there, and each heal once it read real time again. An idempotent
// acks=all producer stays exactly-once: nothing the harness checks here
// reads a broker's wall clock (retention, transaction and producer-id
// expiry act on hours to days, longer than the run).
func TestChaosLocalClockSkew(t *testing.T) {
	p := requireReal(t, "local")
	if !cluster.Supports(local.New(local.Options{}), cluster.CapClock) {
		msg := "clock skew on the local provider needs libfaketime (Debian's faketime)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: not skipping)")
		}
		t.Skip(msg)
	}
	clockSkewClaim(t, p, "local-clock-skew")
}

// clockSkewClaim runs the clock-skew experiment (TestChaosLocalClockSkew)
// on p's provider under name.
func clockSkewClaim(t *testing.T, p realProfile, name string) {
	t.Helper()
	p.limit = 25 * time.Second
	s := realScenario(name, p)
	bump := faultAt(s, generators.KindClockSkew, "leader", 0.15, 0.4)
	bump.Params.Offset = d(time.Hour)
	strobe := faultAt(s, generators.KindClockSkew, "one", 0.45, 0.95)
	strobe.Params.Offset, strobe.Params.Mode, strobe.Params.Every = d(-30*time.Second), generators.ClockStrobe, d(3*time.Second)
	s.Nemesis = []generators.Fault{bump, strobe}
	a := runReal(t, s, 0)
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	if !a.out.Held {
		t.Errorf("the guarantee did not hold: %s", weaker(a))
	}
	faults := resultsFaults(t, a.out.Dir)
	if len(faults) != 2 {
		t.Fatalf("results.json lists %d faults, want 2: %+v", len(faults), faults)
	}
	for i, want := range []time.Duration{time.Hour, -30 * time.Second} {
		f := faults[i]
		if f.Kind != generators.KindClockSkew || f.Fired != 1 || len(f.Errors) > 0 {
			t.Errorf("fault %d: %+v, want clock-skew fired once without errors", i, f)
		}
		if flips := checkReadings(t, i, f.Evidence, want); i == 1 && flips < 2 {
			t.Errorf("the strobe flipped its clock %d times, want at least 2 (back to real time and skewed again)", flips)
		}
	}
}

// resultsFaults is the faults of the run's results.json.
func resultsFaults(t *testing.T, dir string) []runner.FaultStat {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var r runner.Results
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", report.ResultsFile, err)
	}
	return r.Stats.Faults
}

// reading is one line of a clock fault's evidence.
var reading = regexp.MustCompile(`^(skew|strobe|heal) node \d+: want (\S+), read (\S+) \(probe rtt \S+\)$`)

// checkReadings asserts that fault i's evidence shows its clock read at
// offset (within a second) when skewed and at real time when healed, and
// that no move failed; it returns the number of strobe flips.
func checkReadings(t *testing.T, i int, evidence []string, offset time.Duration) int {
	t.Helper()
	seen := map[string]int{}
	for _, e := range evidence {
		m := reading.FindStringSubmatch(e)
		if m == nil {
			t.Errorf("fault %d: evidence %q is no verified reading", i, e)
			continue
		}
		want, err1 := time.ParseDuration(m[2])
		read, err2 := time.ParseDuration(m[3])
		if err1 != nil || err2 != nil {
			t.Errorf("fault %d: evidence %q: %v %v", i, e, err1, err2)
			continue
		}
		seen[m[1]]++
		if (m[1] == "skew" && want != offset) || (m[1] == "heal" && want != 0) || (read-want).Abs() > time.Second {
			t.Errorf("fault %d: evidence %q: want %s on skew, 0 on heal, and a reading within 1s", i, e, offset)
		}
	}
	if seen["skew"] == 0 || seen["heal"] == 0 {
		t.Errorf("fault %d: evidence shows no skew or no heal reading:\n%s", i, strings.Join(evidence, "\n"))
	}
	t.Logf("fault %d evidence:\n  %s", i, strings.Join(evidence, "\n  "))
	return seen["strobe"]
}

// The leader's wall clock eight days ahead, past the topic's 7-day
// retention, with the retention check every second (full profile only:
// the check starts 30 s after a broker does, so the run is 45 s): the
// leader deletes its segments by its own clock and the followers follow
// its log start, so acknowledged writes are lost (lost-write) and the
// idempotent acks=all producer's exactly-once does not hold. Kafka keeps
// data by the leader's wall clock; this pins that the harness shows it.
func TestChaosLocalClockSkewRetentionLoses(t *testing.T) {
	p := requireFull(t, "local", "claim: full profile only (a 45 s run on a cluster of its own)")
	p.limit = 45 * time.Second
	s := realScenario("local-clock-retention", p)
	s.Cluster.BrokerConfigs = map[string]string{"log.retention.check.interval.ms": "1000"}
	skew := faultAt(s, generators.KindClockSkew, "leader", 0.5, 0.9)
	skew.Params.Offset = d(8 * 24 * time.Hour)
	s.Nemesis = []generators.Fault{skew}
	a := runReal(t, s, 0)
	if why := worked(a, 50); why != "" {
		t.Fatalf("the run proves nothing: %s; %s", why, a)
	}
	if a.out.Held || a.out.Result.Counts[checkers.LostWrite] == 0 {
		t.Errorf("CLAIM: 8 days of skew on the leader past 7 days of retention loses acknowledged writes; %s", a)
	}
	t.Logf("CLAIM retention by the leader's clock: %d lost writes; %s", a.out.Result.Counts[checkers.LostWrite], a)
}
