package generators

import (
	"flag"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"pgregory.net/rapid"
)

func TestScenarioGenDrawsValidScenarios(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := ScenarioGen().Draw(t, "scenario")
		if err := s.Validate(); err != nil {
			t.Fatalf("drawn scenario is invalid: %v\n%+v", err, s)
		}
		sp := ShortSpace()
		if s.TimeLimit.D() < sp.MinTime || s.TimeLimit.D() > sp.MaxTime {
			t.Fatalf("time limit %s outside [%s, %s]", s.TimeLimit, sp.MinTime, sp.MaxTime)
		}
		if len(s.Nemesis) > sp.MaxFaults {
			t.Fatalf("%d faults, want at most %d", len(s.Nemesis), sp.MaxFaults)
		}
	})
}

func TestSubGeneratorsDrawValidParts(t *testing.T) {
	sp := ShortSpace()
	rapid.Check(t, func(t *rapid.T) {
		s := ClientConfigGen(sp).Draw(t, "client")
		s.Name, s.TimeLimit = "x", Duration(time.Second)
		s.Workload = WorkloadGen(sp, s).Draw(t, "workload")
		s.Nemesis = NemesisGen(sp, s).Draw(t, "nemesis")
		if err := s.Validate(); err != nil {
			t.Fatalf("assembled scenario is invalid: %v", err)
		}
	})
}

func TestRandomIsDeterministicAndValid(t *testing.T) {
	for seed := int64(0); seed < 50; seed++ {
		a, b := Random(seed), Random(seed)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: two draws differ", seed)
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	if reflect.DeepEqual(Random(1), Random(2)) {
		t.Fatal("seeds 1 and 2 drew the same scenario")
	}
}

func TestShrinkingReachesASmallSchedule(t *testing.T) {
	// A property that fails as soon as there is a lost-ack fault must
	// shrink to a single fault: the minimal failing schedule.
	var last Scenario
	failing := func(s Scenario) bool {
		for _, f := range s.Nemesis {
			if f.Kind == KindLostAck {
				return true
			}
		}
		return false
	}
	// The failure is the point here: no fail file to replay it.
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("rapid.nofailfile", "false")
	rt := &recordingT{}
	rapid.Check(rt, func(t *rapid.T) {
		s := ScenarioGen().Draw(t, "scenario")
		if failing(s) {
			last = s
			t.Fatal("has a lost-ack fault")
		}
	})
	if !rt.failed {
		t.Fatal("no scenario with a lost-ack fault was drawn")
	}
	if len(last.Nemesis) != 1 || last.Workload.Producers != 1 || last.Keys.Count != 1 {
		t.Fatalf("shrunk to %d faults, %d producers, %d keys; want 1, 1, 1", len(last.Nemesis), last.Workload.Producers, last.Keys.Count)
	}
}

// recordingT is a rapid.TB that notes a failure instead of failing, so a
// test can run rapid.Check on a property that is meant to fail.
type recordingT struct{ failed bool }

func (r *recordingT) Helper()               {}
func (r *recordingT) Name() string          { return "shrink" }
func (r *recordingT) Logf(string, ...any)   {}
func (r *recordingT) Log(...any)            {}
func (r *recordingT) Skipf(string, ...any)  {}
func (r *recordingT) Skip(...any)           {}
func (r *recordingT) SkipNow()              {}
func (r *recordingT) Errorf(string, ...any) { r.failed = true }
func (r *recordingT) Error(...any)          { r.failed = true }
func (r *recordingT) Fatalf(string, ...any) { r.failed = true }
func (r *recordingT) Fatal(...any)          { r.failed = true }
func (r *recordingT) FailNow()              { r.failed = true }
func (r *recordingT) Fail()                 { r.failed = true }
func (r *recordingT) Failed() bool          { return r.failed }

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		s := ScenarioGen().Draw(t, "scenario")
		s.Replay = "kafkachaos run --scenario x"
		if err := Save(dir, s); err != nil {
			t.Fatal(err)
		}
		got, err := Load(filepath.Join(dir, FileName))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Fatalf("round trip changed the scenario:\n got %+v\nwant %+v", got, s)
		}
	})
}

// Each provider's kinds draw valid scenarios, a real or external cluster
// is never asked for what only the embedded one has, and an external one
// for nothing but what SSH to its hosts can do (kill, pause, partition).
func TestKindsForEachProvider(t *testing.T) {
	embeddedOnly := map[cluster.Capability]bool{"request-faults": true, "leader-move": true}
	for _, provider := range []string{"embedded", "local", "docker", "external"} {
		kinds := KindsFor(provider)
		if len(kinds) == 0 {
			t.Fatalf("%s: no kinds", provider)
		}
		for _, k := range kinds {
			c := KindCapability(k)
			switch {
			case !knownKind(k):
				t.Errorf("%s: unknown kind %q", provider, k)
			case provider != "embedded" && embeddedOnly[c]:
				t.Errorf("%s: kind %s needs %s, which only the embedded cluster has", provider, k, c)
			case provider == "external" && c != "" && c != cluster.CapKill && c != cluster.CapPause && c != cluster.CapPartition:
				t.Errorf("external: kind %s needs the cluster's %s", k, c)
			}
		}
		sp := ShortSpace()
		sp.Provider, sp.Kinds = provider, kinds
		for seed := range int64(20) {
			s := RandomIn(sp, seed)
			if err := s.Validate(); err != nil {
				t.Fatalf("%s seed %d: %v", provider, seed, err)
			}
			for _, f := range s.Nemesis {
				if !slices.Contains(kinds, f.Kind) {
					t.Fatalf("%s seed %d: drew %s, not one of %v", provider, seed, f.Kind, kinds)
				}
			}
		}
	}
	KindsFor("embedded")[0] = "changed"
	if KindsFor("embedded")[0] == "changed" {
		t.Error("KindsFor hands out its own list")
	}
}

// Every producer row of the seed table (idempotent, transactional, and
// acks all, 1 and 0 without idempotence) is drawn about as often as the
// others, by rapid and by seed: a 20-draw test run must meet each.
func TestProducerKindsAreDrawnEvenly(t *testing.T) {
	row := func(s Scenario) string {
		switch {
		case s.Producer.TransactionalID != "":
			return "transactional"
		case s.Producer.EnableIdempotence:
			return "idempotent"
		}
		return "acks=" + s.Producer.Acks.String()
	}
	const n = 500
	rapidRows, seedRows := map[string]int{}, map[string]int{}
	for i := range n {
		rapidRows[row(ScenarioGenIn(FastSpace()).Example(i))]++
		seedRows[row(RandomIn(FastSpace(), int64(i)))]++
	}
	for name, rows := range map[string]map[string]int{"rapid": rapidRows, "seed": seedRows} {
		for _, r := range []string{"idempotent", "transactional", "acks=all", "acks=1", "acks=0"} {
			if rows[r] < n/10 {
				t.Errorf("%s: %s drawn %d times in %d, want at least %d: %v", name, r, rows[r], n, n/10, rows)
			}
		}
	}
}
