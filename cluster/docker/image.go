package docker

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/flock"
	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
	"github.com/moby/moby/client"
)

//go:embed entrypoint.sh
var entrypointScript []byte

//go:embed log4j2.properties
var log4jConfig []byte

// OfficialImage is the Apache Kafka project's image of version.
func OfficialImage(version string) string { return "apache/kafka:" + version }

// LocalImage is the image this package builds when no official one can be
// pulled, and the one a run with movable clocks needs (it carries
// libfaketime). Its tag holds a digest of the recipe (imageRecipe), so a
// change of the packages or the embedded files names a new image instead
// of reusing a stale one.
func LocalImage(version string) string { return "kafkachaos/kafka:" + version + "-" + recipeDigest() }

// debootstrapPackages are the packages the image adds to Debian's minbase:
// the broker's Java, and libfaketime for clock skew (see clock.go).
var debootstrapPackages = []string{"openjdk-17-jre-headless", "faketime"}

// debianSuite is the Debian release the image is debootstrapped from.
const debianSuite = "bookworm"

// imageRecipe is everything besides Kafka's jars that decides the image's
// content; the jars are named by the version in the tag.
func imageRecipe() [][]byte {
	return [][]byte{[]byte(debianSuite + " minbase"), []byte(strings.Join(debootstrapPackages, ",")), entrypointScript, log4jConfig}
}

// recipeDigest is the digest of imageRecipe.
func recipeDigest() string { return digestOf(imageRecipe()) }

// digestOf is the first 12 hex digits of the SHA-256 of parts, each
// prefixed with its length so that no two lists share a digest by moving
// bytes across a boundary.
func digestOf(parts [][]byte) string {
	h := sha256.New()
	for _, part := range parts {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// versionLabel marks images built here with the Kafka version inside.
const versionLabel = "org.kafkachaos.kafka.version"

// pullTimeout bounds the attempt to pull the official image: without a
// registry it fails within a second, a slow registry must not stall a run.
const pullTimeout = 5 * time.Minute

// EnsureImage returns an image reference that runs Kafka version and is
// present in the engine. With ref set, that image is used (pulled if
// absent, built if it is not pullable and ref is the LocalImage name);
// otherwise the official apache/kafka image is preferred and
// LocalImage(version) is built from kafkadist's jars when it cannot be
// pulled. A present image is never rebuilt. Version "" means
// kafkadist.Version().
func EnsureImage(ctx context.Context, cli *client.Client, version, ref string, logf func(string, ...any)) (string, error) {
	if version == "" {
		version = kafkadist.Version()
	}
	if ref != "" {
		return ensureNamed(ctx, cli, version, ref, logf)
	}
	official := OfficialImage(version)
	if present(ctx, cli, official) {
		return official, nil
	}
	err := pull(ctx, cli, official)
	if err == nil {
		logf("cluster/docker: pulled %s", official)
		return official, nil
	}
	logf("cluster/docker: cannot pull %s (%v): using the locally built %s instead", official, oneLine(err), LocalImage(version))
	return ensureNamed(ctx, cli, version, LocalImage(version), logf)
}

func ensureNamed(ctx context.Context, cli *client.Client, version, ref string, logf func(string, ...any)) (string, error) {
	if present(ctx, cli, ref) {
		return ref, nil
	}
	if !strings.HasPrefix(ref, "kafkachaos/") {
		if err := pull(ctx, cli, ref); err != nil {
			return "", fmt.Errorf("cluster/docker: image %s is not present and cannot be pulled: %w", ref, err)
		}
		return ref, nil
	}
	began := time.Now()
	if err := BuildImage(ctx, cli, version, ref, logf); err != nil {
		return "", err
	}
	logf("cluster/docker: built %s in %s", ref, time.Since(began).Round(time.Second))
	return ref, nil
}

func present(ctx context.Context, cli *client.Client, ref string) bool {
	_, err := cli.ImageInspect(ctx, ref)
	return err == nil
}

func pull(ctx context.Context, cli *client.Client, ref string) error {
	ctx, cancel := context.WithTimeout(ctx, pullTimeout)
	defer cancel()
	resp, err := cli.ImagePull(ctx, ref, client.ImagePullOptions{})
	if err != nil {
		return err
	}
	return resp.Wait(ctx)
}

// BuildImage builds ref: a minimal Debian bookworm root filesystem
// (debootstrap, from the mirror apt uses) with a headless Java 17 and
// libfaketime (debootstrapPackages), the jars
// of Kafka version from kafkadist's cache and the KRaft entrypoint, imported
// with `docker import` semantics. It needs root and debootstrap. Concurrent
// builders (parallel test binaries) wait for one build.
func BuildImage(ctx context.Context, cli *client.Client, version, ref string, logf func(string, ...any)) error {
	dist, err := kafkadist.Ensure(ctx, version)
	if err != nil {
		return err
	}
	cache, err := kafkadist.CacheDir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(cache, "debootstrap-debs"), 0o755); err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	unlock, err := flock.Lock(filepath.Join(cache, "image-build.lock"))
	if err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	defer unlock()
	if present(ctx, cli, ref) { // built by another process while we waited
		return nil
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return errors.New("cluster/docker: building the Kafka image needs debootstrap (apt-get install debootstrap) and root")
	}
	work, err := os.MkdirTemp(cache, "image-build-")
	if err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	defer removeBuildDir(work, logf)
	root := filepath.Join(work, "rootfs")
	mirror := debianMirror()
	logf("cluster/docker: building %s: debootstrap bookworm from %s with %s, Kafka %s jars", ref, mirror, strings.Join(debootstrapPackages, ", "), dist.Version)
	if err := debootstrap(ctx, root, filepath.Join(cache, "debootstrap-debs"), mirror, filepath.Join(work, "debootstrap.log")); err != nil {
		return err
	}
	if err := installKafka(ctx, root, dist); err != nil {
		return err
	}
	return importRootfs(ctx, cli, root, ref, dist.Version)
}

func debootstrap(ctx context.Context, root, debs, mirror, logPath string) error {
	cmd := exec.CommandContext(ctx, "debootstrap", "--variant=minbase", "--include="+strings.Join(debootstrapPackages, ","),
		"--cache-dir="+debs, debianSuite, root, mirror)
	out, err := cmd.CombinedOutput()
	if err != nil {
		os.WriteFile(logPath, out, 0o644)
		return fmt.Errorf("cluster/docker: debootstrap: %w; output tail:\n%s", err, tail(string(out), 20))
	}
	return nil
}

// installKafka trims what a broker never reads and adds the jars, the
// entrypoint and the logging config.
func installKafka(ctx context.Context, root string, dist kafkadist.Dist) error {
	for _, p := range []string{"usr/share/doc", "usr/share/man", "usr/share/locale", "usr/share/info",
		"var/cache/apt/archives", "var/lib/apt/lists"} {
		if err := os.RemoveAll(filepath.Join(root, p)); err != nil {
			return fmt.Errorf("cluster/docker: trimming rootfs: %w", err)
		}
	}
	kafka := filepath.Join(root, "opt", "kafka")
	if err := os.MkdirAll(filepath.Join(kafka, "config"), 0o755); err != nil {
		return fmt.Errorf("cluster/docker: %w", err)
	}
	if out, err := exec.CommandContext(ctx, "cp", "-a", dist.Libs, filepath.Join(kafka, "libs")).CombinedOutput(); err != nil {
		return fmt.Errorf("cluster/docker: copying Kafka jars: %v: %s", err, out)
	}
	entry := filepath.Join(root, "etc", "kafka", "docker", "run")
	for _, f := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{entry, entrypointScript, 0o755},
		{filepath.Join(kafka, "config", "log4j2.properties"), log4jConfig, 0o644},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return fmt.Errorf("cluster/docker: %w", err)
		}
		if err := os.WriteFile(f.path, f.data, f.mode); err != nil {
			return fmt.Errorf("cluster/docker: %w", err)
		}
	}
	return os.MkdirAll(filepath.Join(root, "var", "lib", "kafka", "data"), 0o755)
}

// importRootfs streams root as a tar into the engine as image ref.
func importRootfs(ctx context.Context, cli *client.Client, root, ref, version string) error {
	tar := exec.CommandContext(ctx, "tar", "--numeric-owner", "--one-file-system", "-C", root, "-c", ".")
	stdout, err := tar.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	tar.Stderr = &stderr
	if err := tar.Start(); err != nil {
		return fmt.Errorf("cluster/docker: tar: %w", err)
	}
	resp, err := cli.ImageImport(ctx, client.ImageImportSource{Source: stdout, SourceName: "-"}, ref,
		client.ImageImportOptions{
			Message: "kafkachaos: Debian bookworm, " + strings.Join(debootstrapPackages, ", ") + ", Kafka " + version,
			Changes: []string{
				`ENTRYPOINT ["/etc/kafka/docker/run"]`,
				"ENV KAFKA_HOME=/opt/kafka",
				"ENV LANG=C.UTF-8",
				"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
				"WORKDIR /opt/kafka",
				"LABEL " + versionLabel + "=" + version,
			},
		})
	if err != nil {
		tar.Process.Kill()
		tar.Wait()
		return fmt.Errorf("cluster/docker: docker import: %w", err)
	}
	defer resp.Close()
	importErr := jsonStreamError(resp)
	if err := tar.Wait(); err != nil {
		return fmt.Errorf("cluster/docker: tar of %s: %w: %s", root, err, stderr.String())
	}
	if importErr != nil {
		return fmt.Errorf("cluster/docker: docker import: %w", importErr)
	}
	return nil
}

// jsonStreamError reads the engine's JSON message stream to its end and
// returns the first error it reports.
func jsonStreamError(r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var m struct {
			Error string `json:"error"`
		}
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		if m.Error != "" {
			return errors.New(m.Error)
		}
	}
}

// debianMirror is the Debian archive apt uses here (the first non-security
// deb.debian.org-style URI in its sources), or deb.debian.org.
func debianMirror() string {
	if m := os.Getenv("KAFKACHAOS_DEBIAN_MIRROR"); m != "" {
		return m
	}
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*")
	for _, f := range append([]string{"/etc/apt/sources.list"}, files...) {
		if m := mirrorIn(f); m != "" {
			return m
		}
	}
	return "http://deb.debian.org/debian"
}

// mirrorIn finds a Debian archive URI in a one-line (.list) or deb822
// (.sources) apt source file.
func mirrorIn(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for _, field := range strings.Fields(sc.Text()) {
			if strings.HasPrefix(field, "#") {
				break
			}
			if strings.HasPrefix(field, "http") && strings.HasSuffix(strings.TrimSuffix(field, "/"), "/debian") {
				return strings.TrimSuffix(field, "/")
			}
		}
	}
	return ""
}

// removeBuildDir deletes a build directory, first unmounting whatever
// debootstrap left mounted inside it: deleting through a bind mount of the
// host's /dev or /proc would damage the host, so a mount that will not go
// keeps the directory.
func removeBuildDir(dir string, logf func(string, ...any)) {
	mounts, err := mountsUnder(dir)
	if err != nil {
		logf("cluster/docker: keeping %s: cannot read mounts: %v", dir, err)
		return
	}
	for i := len(mounts) - 1; i >= 0; i-- {
		if err := syscall.Unmount(mounts[i], syscall.MNT_DETACH); err != nil {
			logf("cluster/docker: keeping %s: cannot unmount %s: %v", dir, mounts[i], err)
			return
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		logf("cluster/docker: removing %s: %v", dir, err)
	}
}

// mountsUnder lists mount points below dir, in mount order.
func mountsUnder(dir string) ([]string, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(f[4], dir+"/") {
			out = append(out, f[4])
		}
	}
	return out, nil
}

func tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }
