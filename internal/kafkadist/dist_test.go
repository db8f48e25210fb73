package kafkadist

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeMaven puts an mvn on PATH that "resolves" by creating jars named like
// Kafka's closure in -DoutputDirectory, and counts its invocations in calls.
func fakeMaven(t *testing.T, slf4j string) (calls string) {
	t.Helper()
	bin := t.TempDir()
	calls = filepath.Join(bin, "calls")
	script := `#!/bin/sh
echo "$@" >> ` + calls + `
for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${a#-DoutputDirectory=}";; -Dartifact=*) art="${a#-Dartifact=}";; esac; done
mkdir -p "$out"
if [ -n "$art" ]; then touch "$out/$(echo "$art" | cut -d: -f2)-$(echo "$art" | cut -d: -f3).jar"; exit 0; fi
touch "$out/kafka_2.13-9.9.9.jar" "$out/slf4j-api-` + slf4j + `.jar" "$out/log4j-api-2.25.5.jar"
`
	if err := os.WriteFile(filepath.Join(bin, "mvn"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return calls
}

func TestEnsureFetchesOnceAndReusesCache(t *testing.T) {
	t.Setenv("KAFKACHAOS_CACHE", t.TempDir())
	calls := fakeMaven(t, "1.7.36")
	d, err := Ensure(context.Background(), "9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	for _, jar := range []string{"kafka_2.13-9.9.9.jar", "log4j-slf4j-impl-2.25.5.jar"} {
		if _, err := os.Stat(filepath.Join(d.Libs, jar)); err != nil {
			t.Errorf("missing %s after fetch: %v", jar, err)
		}
	}
	if _, err := os.Stat(filepath.Join(d.Dir, markerName)); err != nil {
		t.Fatalf("no marker after fetch: %v", err)
	}
	if _, err := Ensure(context.Background(), "9.9.9"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(calls)
	if n := strings.Count(string(b), "\n"); n != 2 {
		t.Errorf("maven ran %d times for two Ensure calls, want 2 (one fetch: closure + binding)", n)
	}
	if got, want := d.Classpath(), filepath.Join(d.Libs, "*"); got != want {
		t.Errorf("Classpath() = %q, want %q", got, want)
	}
}

func TestEnsureRedoesEntryWithoutMarker(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("KAFKACHAOS_CACHE", cache)
	fakeMaven(t, "2.0.16")
	stale := filepath.Join(cache, "kafka-9.9.9", "libs", "half-written.jar")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Ensure(context.Background(), "9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("jar of an interrupted fetch survived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(d.Libs, "log4j-slf4j2-impl-2.25.5.jar")); err != nil {
		t.Errorf("slf4j 2 closure did not get the slf4j2 binding: %v", err)
	}
}

// The client's entry is its own, beside the broker's, with an slf4j-simple
// binding at the version of the slf4j-api kafka-clients brings.
func TestEnsureClientFetchesClientsAndItsBinding(t *testing.T) {
	t.Setenv("KAFKACHAOS_CACHE", t.TempDir())
	calls := fakeMaven(t, "2.0.16")
	d, err := EnsureClient(context.Background(), "9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.Base(d.Dir); got != "kafka-clients-9.9.9" {
		t.Errorf("entry %s, want kafka-clients-9.9.9", got)
	}
	if _, err := os.Stat(filepath.Join(d.Libs, "slf4j-simple-2.0.16.jar")); err != nil {
		t.Errorf("no slf4j-simple binding matching slf4j-api 2.0.16: %v", err)
	}
	b, _ := os.ReadFile(calls)
	if !strings.Contains(string(b), "dependency:copy-dependencies") {
		t.Errorf("maven calls %q: the closure was not resolved", b)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(d.Dir), "kafka-9.9.9")); !os.IsNotExist(err) {
		t.Errorf("the client's fetch made a broker entry: %v", err)
	}
}

func TestEnsureRejectsBadVersion(t *testing.T) {
	t.Setenv("KAFKACHAOS_CACHE", t.TempDir())
	for _, v := range []string{"4.4", "latest", "4.4.0</version>", "../4.4.0"} {
		if _, err := Ensure(context.Background(), v); err == nil || !strings.Contains(err.Error(), "not a release version") {
			t.Errorf("Ensure(%q) error = %v, want a version error", v, err)
		}
	}
}

func TestEnsureWithoutMavenSaysSo(t *testing.T) {
	t.Setenv("KAFKACHAOS_CACHE", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	_, err := Ensure(context.Background(), "9.9.9")
	if err == nil || !strings.Contains(err.Error(), "mvn not found") {
		t.Fatalf("error = %v, want mvn not found", err)
	}
}

func TestVersionFromEnvironment(t *testing.T) {
	t.Setenv("KAFKA_VERSION", "")
	if got := Version(); got != DefaultVersion {
		t.Errorf("Version() = %q without KAFKA_VERSION, want %q", got, DefaultVersion)
	}
	t.Setenv("KAFKA_VERSION", " 4.3.1 ")
	if got := Version(); got != "4.3.1" {
		t.Errorf("Version() = %q, want 4.3.1", got)
	}
}

func TestPomNamesEveryServerModule(t *testing.T) {
	for v, want := range map[string]int{"4.4.0": 3, "3.7.2": 3, "3.6.2": 2, "3.3.2": 2} {
		mods := serverModules(v)
		p := pom(v, mods)
		if len(mods) != want || strings.Contains(p, "kafka-server") != (want == 3) {
			t.Errorf("%s: modules %v, want %d (kafka-server exists from 3.7.0)", v, mods, want)
		}
		for _, m := range mods {
			if !strings.Contains(p, "<artifactId>"+m+"</artifactId><version>"+v+"</version>") {
				t.Errorf("pom lacks %s %s:\n%s", m, v, p)
			}
		}
	}
}

// Kafka 3.x ships its own slf4j binding (reload4j): no log4j2 one is added.
func TestLoggingBindingOfA3xRelease(t *testing.T) {
	libs := t.TempDir()
	for _, j := range []string{"slf4j-api-1.7.36.jar", "slf4j-reload4j-1.7.36.jar", "reload4j-1.2.25.jar"} {
		os.WriteFile(filepath.Join(libs, j), nil, 0o644)
	}
	if b, err := loggingBinding(libs); b != "" || err != nil || !(Dist{Libs: libs}).Log4j1() {
		t.Errorf("binding %q, %v, log4j1 %v: want none, log4j 1", b, err, (Dist{Libs: libs}).Log4j1())
	}
}

func TestLoggingBindingNeedsOneSlf4j(t *testing.T) {
	libs := t.TempDir()
	for _, j := range []string{"slf4j-api-1.7.36.jar", "slf4j-api-2.0.1.jar", "log4j-api-2.25.5.jar"} {
		os.WriteFile(filepath.Join(libs, j), nil, 0o644)
	}
	if _, err := loggingBinding(libs); err == nil || !strings.Contains(err.Error(), "found 2") {
		t.Errorf("two slf4j-api jars: error = %v, want 'found 2'", err)
	}
}
