package kafkadist

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kafkachaos/kafkachaos/internal/flock"
)

// DefaultVersion is the pinned Kafka release: the newest 4.x whose server,
// tools and dependencies resolve from Maven Central here and run on Java 17.
const DefaultVersion = "4.4.0"

// markerName is written last into a cache entry; its presence means the
// entry's libs directory is complete.
const markerName = ".kafkachaos-complete"

var versionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)

// Dist is one fetched Kafka release.
type Dist struct {
	Version string
	Dir     string // the cache entry, e.g. ~/.cache/kafkachaos/kafka-4.4.0
	Libs    string // Dir/libs: every jar the broker and its tools need
}

// Log4j1 reports whether the release logs through log4j 1 (reload4j, Kafka
// 3.x: configured by -Dlog4j.configuration) rather than log4j2 (4.x:
// -Dlog4j2.configurationFile).
func (d Dist) Log4j1() bool { return log4j1(d.Libs) }

// Classpath is the java -cp argument that loads every jar in Libs.
func (d Dist) Classpath() string { return filepath.Join(d.Libs, "*") }

// Version returns KAFKA_VERSION when set, DefaultVersion otherwise.
func Version() string {
	if v := strings.TrimSpace(os.Getenv("KAFKA_VERSION")); v != "" {
		return v
	}
	return DefaultVersion
}

// CacheDir is where releases are cached: $KAFKACHAOS_CACHE, else
// $XDG_CACHE_HOME/kafkachaos, else ~/.cache/kafkachaos.
func CacheDir() (string, error) {
	if d := os.Getenv("KAFKACHAOS_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("kafkadist: no cache directory (set KAFKACHAOS_CACHE): %w", err)
	}
	return filepath.Join(base, "kafkachaos"), nil
}

// Ensure returns the cached release of version ("" means Version()),
// fetching it with Maven first when the cache has no complete entry.
// Concurrent callers (parallel test packages) wait for one fetch.
func Ensure(ctx context.Context, version string) (Dist, error) {
	if version == "" {
		version = Version()
	}
	return ensure(ctx, "kafka-", version, resolve)
}

// EnsureClient returns the cached Java client of release version ("" means
// Version()): kafka-clients, its runtime dependencies (compression
// codecs, slf4j-api) and an slf4j binding that writes to stderr, fetched
// with Maven first as Ensure does. Its Libs is a client's classpath.
func EnsureClient(ctx context.Context, version string) (Dist, error) {
	if version == "" {
		version = Version()
	}
	return ensure(ctx, "kafka-clients-", version, resolveClient)
}

// resolver copies a release's jars into libs, using work as scratch.
type resolver func(ctx context.Context, work, libs, version string) error

// ensure returns the cache entry prefix+version, made by res under a lock
// when it is not complete.
func ensure(ctx context.Context, prefix, version string, res resolver) (Dist, error) {
	if !versionPattern.MatchString(version) {
		return Dist{}, fmt.Errorf("kafkadist: version %q is not a release version like %s", version, DefaultVersion)
	}
	cache, err := CacheDir()
	if err != nil {
		return Dist{}, err
	}
	d := Dist{Version: version, Dir: filepath.Join(cache, prefix+version)}
	d.Libs = filepath.Join(d.Dir, "libs")
	if complete(d) {
		return d, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Dist{}, fmt.Errorf("kafkadist: %w", err)
	}
	unlock, err := flock.Lock(filepath.Join(cache, prefix+version+".lock"))
	if err != nil {
		return Dist{}, fmt.Errorf("kafkadist: %w", err)
	}
	defer unlock()
	if complete(d) { // another process fetched it while we waited
		return d, nil
	}
	if err := fetch(ctx, d, res); err != nil {
		return Dist{}, err
	}
	return d, nil
}

func complete(d Dist) bool {
	_, err := os.Stat(filepath.Join(d.Dir, markerName))
	return err == nil
}

// fetch resolves the release into a scratch directory and moves it into
// place, writing the marker last.
func fetch(ctx context.Context, d Dist, res resolver) error {
	if err := os.RemoveAll(d.Dir); err != nil {
		return fmt.Errorf("kafkadist: clearing incomplete %s: %w", d.Dir, err)
	}
	work := d.Dir + ".partial"
	if err := os.RemoveAll(work); err != nil {
		return fmt.Errorf("kafkadist: %w", err)
	}
	defer os.RemoveAll(work)
	libs := filepath.Join(work, "libs")
	if err := res(ctx, work, libs, d.Version); err != nil {
		return err
	}
	jars, err := filepath.Glob(filepath.Join(libs, "*.jar"))
	if err != nil || len(jars) == 0 {
		return fmt.Errorf("kafkadist: maven copied no jars for %s into %s", filepath.Base(d.Dir), libs)
	}
	if err := os.Rename(work, d.Dir); err != nil {
		return fmt.Errorf("kafkadist: %w", err)
	}
	marker := fmt.Sprintf("kafka %s\njars %d\n", d.Version, len(jars))
	if err := os.WriteFile(filepath.Join(d.Dir, markerName), []byte(marker), 0o644); err != nil {
		return fmt.Errorf("kafkadist: writing marker: %w", err)
	}
	return nil
}
