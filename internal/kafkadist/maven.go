package kafkadist

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// serverModules are the artifacts whose runtime closure is a broker plus
// the storage tool: kafka_2.13 holds kafka.Kafka and kafka.tools.StorageTool.
// kafka-server was first published with 3.7.0; before it, kafka_2.13's
// closure holds what it later took.
func serverModules(version string) []string {
	if olderThan(version, 3, 7) {
		return []string{"kafka_2.13", "kafka-tools"}
	}
	return []string{"kafka_2.13", "kafka-server", "kafka-tools"}
}

// olderThan reports whether release version (major.minor.patch) is older
// than major.minor.
func olderThan(version string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(version, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma < major || ma == major && mi < minor
}

// pom is a throwaway project whose only purpose is to name modules (of
// org.apache.kafka, at version) so that dependency:copy-dependencies
// resolves their runtime closure.
func pom(version string, modules []string) string {
	var deps strings.Builder
	for _, m := range modules {
		fmt.Fprintf(&deps, "    <dependency><groupId>org.apache.kafka</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n", m, version)
	}
	return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafkachaos</groupId><artifactId>kafka-dist</artifactId><version>` + version + `</version>
  <packaging>pom</packaging>
  <dependencies>
` + deps.String() + `  </dependencies>
</project>
`
}

// resolve copies the release's runtime jars into libs, then the log4j2
// binding for the slf4j API the release ships (Kafka's poms leave the
// binding to the distribution, which we are building here).
func resolve(ctx context.Context, work, libs, version string) error {
	if err := copyClosure(ctx, work, libs, version, serverModules(version)); err != nil {
		return err
	}
	binding, err := loggingBinding(libs)
	if err != nil || binding == "" {
		return err
	}
	return copyArtifact(ctx, work, libs, binding)
}

// resolveClient copies kafka-clients' runtime closure into libs, then
// slf4j-simple at the version of the slf4j-api it brings: kafka-clients
// names the API alone, and without a binding slf4j drops every log line
// (1.x with a warning on stderr at each start).
func resolveClient(ctx context.Context, work, libs, version string) error {
	if err := copyClosure(ctx, work, libs, version, []string{"kafka-clients"}); err != nil {
		return err
	}
	slf4j, err := jarVersion(libs, "slf4j-api")
	if err != nil {
		return err
	}
	return copyArtifact(ctx, work, libs, "org.slf4j:slf4j-simple:"+slf4j)
}

// copyClosure copies the runtime closure of modules at version into libs.
func copyClosure(ctx context.Context, work, libs, version string, modules []string) error {
	if _, err := exec.LookPath("mvn"); err != nil {
		return fmt.Errorf("kafkadist: mvn not found on PATH (install Debian's maven package): %w", err)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("kafkadist: %w", err)
	}
	pomPath := filepath.Join(work, "pom.xml")
	if err := os.WriteFile(pomPath, []byte(pom(version, modules)), 0o644); err != nil {
		return fmt.Errorf("kafkadist: %w", err)
	}
	if err := mvn(ctx, work, "-f", pomPath, "dependency:copy-dependencies",
		"-DincludeScope=runtime", "-DoutputDirectory="+libs); err != nil {
		return fmt.Errorf("kafkadist: resolving %s %s: %w", strings.Join(modules, ", "), version, err)
	}
	return nil
}

// copyArtifact copies one artifact (group:name:version) into libs.
func copyArtifact(ctx context.Context, work, libs, artifact string) error {
	if err := mvn(ctx, work, "dependency:copy", "-Dartifact="+artifact, "-DoutputDirectory="+libs); err != nil {
		return fmt.Errorf("kafkadist: fetching %s: %w", artifact, err)
	}
	return nil
}

// loggingBinding picks the log4j2 slf4j binding matching the slf4j-api and
// log4j-api versions found in libs, so the binding never disagrees with them;
// "" for a 3.x release, whose runtime closure brings its own binding
// (slf4j-reload4j: log4j 1's API, see Dist.Log4j1).
func loggingBinding(libs string) (string, error) {
	if log4j1(libs) {
		return "", nil
	}
	slf4j, err := jarVersion(libs, "slf4j-api")
	if err != nil {
		return "", err
	}
	log4j, err := jarVersion(libs, "log4j-api")
	if err != nil {
		return "", err
	}
	artifact := "log4j-slf4j-impl"
	if !strings.HasPrefix(slf4j, "1.") {
		artifact = "log4j-slf4j2-impl"
	}
	return "org.apache.logging.log4j:" + artifact + ":" + log4j, nil
}

// log4j1 reports whether libs logs through reload4j (Kafka 3.x) rather than
// log4j2 (Kafka 4.x).
func log4j1(libs string) bool {
	m, _ := filepath.Glob(filepath.Join(libs, "slf4j-reload4j-[0-9]*.jar"))
	return len(m) > 0
}

// jarVersion finds libs/<name>-<version>.jar and returns version.
func jarVersion(libs, name string) (string, error) {
	matches, _ := filepath.Glob(filepath.Join(libs, name+"-[0-9]*.jar"))
	if len(matches) != 1 {
		return "", fmt.Errorf("kafkadist: want exactly one %s jar in %s, found %d", name, libs, len(matches))
	}
	base := filepath.Base(matches[0])
	return strings.TrimSuffix(strings.TrimPrefix(base, name+"-"), ".jar"), nil
}

// mvn runs Maven in batch mode; on failure the error carries its output tail.
func mvn(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "mvn", append([]string{"-B", "-q"}, args...)...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("mvn %s: %w\n%s", strings.Join(args, " "), err, tail(out.String(), 40))
	}
	return nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
