package java

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kafkachaos/kafkachaos/internal/flock"
	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
)

//go:embed src/KafkachaosWorker.java
var workerSource []byte

// mainClass is the worker's class, in the default package.
const mainClass = "KafkachaosWorker"

// Toolchain is a compiled worker and the client release it runs on.
type Toolchain struct {
	Java      string // the java command
	Version   string // kafka-clients release
	Classpath string // the worker's classes, then the client's jars
}

// Ensure returns the worker compiled against kafka-clients release version
// ("" means kafkadist.Version()): the jars fetched and the source compiled
// into the cache on first use, reused after. Concurrent callers wait for
// one build.
func Ensure(ctx context.Context, version string) (Toolchain, error) {
	java, javac, err := jdk()
	if err != nil {
		return Toolchain{}, err
	}
	dist, err := kafkadist.EnsureClient(ctx, version)
	if err != nil {
		return Toolchain{}, err
	}
	cache, err := kafkadist.CacheDir()
	if err != nil {
		return Toolchain{}, err
	}
	sum := sha256.Sum256(workerSource)
	dir := filepath.Join(cache, "java-worker-"+hex.EncodeToString(sum[:6])+"-"+dist.Version)
	classes := filepath.Join(dir, "classes")
	tc := Toolchain{Java: java, Version: dist.Version, Classpath: classes + string(os.PathListSeparator) + dist.Classpath()}
	if built(dir) {
		return tc, nil
	}
	unlock, err := flock.Lock(dir + ".lock")
	if err != nil {
		return Toolchain{}, fmt.Errorf("java worker: %w", err)
	}
	defer unlock()
	if built(dir) { // another process built it while we waited
		return tc, nil
	}
	if err := compile(ctx, javac, dir, dist.Classpath()); err != nil {
		return Toolchain{}, err
	}
	return tc, nil
}

// builtMarker is written last into a build: its presence means the classes
// are complete.
const builtMarker = ".kafkachaos-complete"

func built(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, builtMarker))
	return err == nil
}

// jdk finds java and javac on PATH.
func jdk() (java, javac string, err error) {
	java, jerr := exec.LookPath("java")
	javac, cerr := exec.LookPath("javac")
	if jerr != nil || cerr != nil {
		return "", "", fmt.Errorf("the java client needs java and javac on PATH (a JDK 17 or later: Debian's openjdk-17-jdk-headless)")
	}
	return java, javac, nil
}

// compile builds the worker into dir/classes against the client's jars.
func compile(ctx context.Context, javac, dir, classpath string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("java worker: clearing incomplete %s: %w", dir, err)
	}
	src := filepath.Join(dir, "src", mainClass+".java")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		return fmt.Errorf("java worker: %w", err)
	}
	if err := os.WriteFile(src, workerSource, 0o644); err != nil {
		return fmt.Errorf("java worker: %w", err)
	}
	cmd := exec.CommandContext(ctx, javac, "-nowarn", "-encoding", "UTF-8", "-cp", classpath, "-d", filepath.Join(dir, "classes"), src)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("java worker: javac %s: %w\n%s", src, err, strings.TrimSpace(out.String()))
	}
	if err := os.WriteFile(filepath.Join(dir, builtMarker), []byte("built\n"), 0o644); err != nil {
		return fmt.Errorf("java worker: writing marker: %w", err)
	}
	return nil
}
