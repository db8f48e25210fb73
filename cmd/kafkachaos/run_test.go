package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
)

func TestRunRefusesBadFlagsWithExit2(t *testing.T) {
	cases := map[string][]string{
		"unknown fault":        {"--nemesis", "meteor"},
		"bad acks":             {"--acks", "2"},
		"bad workload":         {"--workload", "dance"},
		"idempotent acks=1":    {"--acks", "1", "--idempotence=true"},
		"stray argument":       {"extra"},
		"missing scenario":     {"--scenario", "/nonexistent/scenario.json"},
		"scenario plus config": {"--scenario", "x.json", "--acks", "1"},
	}
	for name, args := range cases {
		var out, errb bytes.Buffer
		if code := runWith(args, &out, &errb); code != exitError {
			t.Errorf("%s: exit %d, want %d (stderr %q)", name, code, exitError, errb.String())
		}
		if errb.Len() == 0 {
			t.Errorf("%s: nothing said on stderr", name)
		}
	}
}

func TestRunPrintsDirAndVerdictAndReplays(t *testing.T) {
	runs := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"--workload", "produce", "--time-limit", "1s", "--keys", "1", "--producers", "1",
		"--nemesis", "leader-shuffle", "--runs", runs, "--keep", "--quiet"}
	if code := runWith(args, &out, &errb); code != exitValid {
		t.Fatalf("exit %d, want 0; stdout %q stderr %q", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "run dir: "+runs) || !strings.Contains(out.String(), "guarantee held") {
		t.Fatalf("stdout lacks the run dir or verdict: %q", out.String())
	}
	saved, err := filepath.Glob(filepath.Join(runs, "*", "*", "scenario.json"))
	if err != nil || len(saved) != 1 {
		t.Fatalf("scenario.json files: %v, %v", saved, err)
	}
	out.Reset()
	if code := runWith([]string{"--scenario", saved[0], "--runs", runs, "--quiet"}, &out, &errb); code != exitValid {
		t.Fatalf("replay: exit %d; stdout %q stderr %q", code, out.String(), errb.String())
	}
	if _, err := os.Stat(saved[0]); err != nil {
		t.Fatalf("replay removed the original run: %v", err)
	}
	// the replay held and kept nothing: it names no replay it removed
	if got := out.String(); strings.Contains(got, "replay:") || !strings.Contains(got, "run directory removed") {
		t.Fatalf("replay without --keep: %q, want it to say its directory was removed", got)
	}
}

func TestRunRandomWorkloadFitsTheTimeLimit(t *testing.T) {
	var rf runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	rf.register(fs)
	if err := fs.Parse([]string{"--workload", "random", "--seed", "7", "--time-limit", "2s"}); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	s, err := scenarioOf(t.Context(), rf, set, "")
	if err != nil {
		t.Fatalf("random scenario: %v", err)
	}
	if s.TimeLimit.D() != 2*time.Second {
		t.Fatalf("time limit %s, want 2s", s.TimeLimit)
	}
	for i, f := range s.Nemesis {
		if f.End() > s.TimeLimit {
			t.Fatalf("fault %d ends at %s, after the time limit", i, f.End())
		}
	}
	again, _ := scenarioOf(t.Context(), rf, set, "")
	if again.Name != s.Name || len(again.Nemesis) != len(s.Nemesis) {
		t.Fatal("the same seed drew two scenarios")
	}
}

// A random scenario on a real cluster draws only the faults real brokers
// have: never the embedded cluster's request faults.
func TestRunRandomWorkloadDrawsTheClustersKinds(t *testing.T) {
	for seed := range 20 {
		var rf runFlags
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		rf.register(fs)
		if err := fs.Parse([]string{"--workload", "random", "--cluster", "docker", "--seed", strconv.Itoa(seed)}); err != nil {
			t.Fatal(err)
		}
		s, err := scenarioOf(t.Context(), rf, map[string]bool{"workload": true, "cluster": true, "seed": true}, "")
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if s.Cluster.Provider != "docker" {
			t.Fatalf("seed %d: provider %q", seed, s.Cluster.Provider)
		}
		for _, f := range s.Nemesis {
			if !slices.Contains(generators.KindsFor("docker"), f.Kind) {
				t.Fatalf("seed %d: drew %s, which docker does not have", seed, f.Kind)
			}
		}
	}
}

// --nemesis gives a kind that reads no probability none: the membership,
// quorum and stall kinds refuse parameters they do not read, and
// --fault-probability is the request faults' alone. Reassign needs a
// broker holding no replica: --replication-factor below --brokers.
func TestRunNemesisKindsWithoutParamsValidate(t *testing.T) {
	for _, kind := range []string{generators.KindAddBroker, generators.KindRemoveBroker,
		generators.KindRemoveVoter, generators.KindStallConsumer, generators.KindReassign} {
		if err := validateRunArgs(t, "--nemesis", kind, "--replication-factor", "2"); err != nil {
			t.Errorf("--nemesis %s --replication-factor 2: %v", kind, err)
		}
	}
	if err := validateRunArgs(t, "--nemesis", generators.KindReassign); err == nil || !strings.Contains(err.Error(), "replication-factor") {
		t.Errorf("--nemesis reassign with three replicas on three brokers: %v, want refused naming the replication factor", err)
	}
	if err := validateRunArgs(t, "--brokers", "4", "--nemesis", generators.KindReassign); err != nil {
		t.Errorf("--nemesis reassign on four brokers: %v", err)
	}
	var rf runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	rf.register(fs)
	if err := fs.Parse([]string{"--nemesis", "lost-ack", "--fault-probability", "0.4"}); err != nil {
		t.Fatal(err)
	}
	s, err := scenarioOf(t.Context(), rf, map[string]bool{"nemesis": true, "fault-probability": true}, "")
	if err != nil || len(s.Nemesis) != 1 || s.Nemesis[0].Params.Probability != 0.4 {
		t.Errorf("--nemesis lost-ack --fault-probability 0.4: %v, %+v", err, s.Nemesis)
	}
}

// validateRunArgs is the scenario run makes of a consume run on local
// (60 s) with args, validated.
func validateRunArgs(t *testing.T, args ...string) error {
	t.Helper()
	var rf runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	rf.register(fs)
	if err := fs.Parse(append([]string{"--cluster", "local", "--workload", "consume", "--time-limit", "60s"}, args...)); err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	s, err := scenarioOf(t.Context(), rf, set, "")
	if err != nil {
		return err
	}
	return s.Validate()
}

// --transactional runs a transactional copy: copiers with a
// transactional.id, whose transactions the model expects exactly once.
func TestRunTransactionalFlagCopies(t *testing.T) {
	var rf runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	rf.register(fs)
	if err := fs.Parse([]string{"--transactional", "--client", "franz-go"}); err != nil {
		t.Fatal(err)
	}
	s, err := scenarioOf(t.Context(), rf, map[string]bool{"transactional": true, "client": true}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Workload.Copiers == 0 || !s.Producer.Transactional() || s.ClientOf(generators.RoleCopier) != generators.ClientFranzGo {
		t.Fatalf("--transactional: %d copiers, transactional.id %q, copier client %s; want franz-go copiers", s.Workload.Copiers,
			s.Producer.TransactionalID, s.ClientOf(generators.RoleCopier))
	}
}

// --client names the client of every role it runs (producers and
// consumers here; copiers and txn queues too); the roles it does not run stay
// librdkafka, named in the scenario; an unknown client, or a version for
// one without versions, is refused naming the field.
func TestRunClientFlag(t *testing.T) {
	var rf runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	rf.register(fs)
	if err := fs.Parse([]string{"--cluster", "local", "--client", "java@3.9.1", "--nemesis", "kill"}); err != nil {
		t.Fatal(err)
	}
	s, err := scenarioOf(t.Context(), rf, map[string]bool{"cluster": true, "client": true, "nemesis": true}, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.ClientOf(generators.RoleProducer) != generators.ClientJava || s.ClientOf(generators.RoleConsumer) != generators.ClientJava ||
		s.JavaVersion() != "3.9.1" {
		t.Errorf("--client java@3.9.1: client %q@%q, clients %v", s.Client, s.ClientVersion, s.Clients)
	}
	fs = flag.NewFlagSet("run", flag.ContinueOnError)
	rf.register(fs)
	if err := fs.Parse([]string{"--cluster", "local", "--client", "franz-go", "--nemesis", "kill"}); err != nil {
		t.Fatal(err)
	}
	if s, err = scenarioOf(t.Context(), rf, map[string]bool{"cluster": true, "client": true, "nemesis": true}, ""); err != nil {
		t.Fatalf("--client franz-go: %v", err)
	}
	if s.ClientOf(generators.RoleProducer) != generators.ClientFranzGo || s.ClientOf(generators.RoleConsumer) != generators.ClientFranzGo {
		t.Errorf("--client franz-go: client %q@%q, clients %v", s.Client, s.ClientVersion, s.Clients)
	}
	for arg, want := range map[string]string{"franz-go@1.18.0": "client-version: \"1.18.0\": the franz-go client is the version go.mod names",
		"kcat": `client: unknown client "kcat"`, "librdkafka@2.6.0": "client-version"} {
		if err := validateRunArgs(t, "--client", arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--client %s: %v, want an error containing %q", arg, err, want)
		}
	}
}
