package local

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kafkachaos/kafkachaos/internal/procstat"
)

// Names of everything a run creates. The run id is 6 lower-case letters and
// digits so that the longest name (a veth, kcv<id>n<node>) fits Linux's
// 15-byte interface names.
const (
	marker     = "-Dkafkachaos.run="
	idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	idLen      = 6
)

func nsName(id string, node int32) string    { return fmt.Sprintf("kc-%s-n%d", id, node) }
func bridgeName(id string) string            { return "kcb" + id }
func vethName(id string, node int32) string  { return fmt.Sprintf("kcv%sn%d", id, node) }
func vpeerName(id string, node int32) string { return fmt.Sprintf("kcp%sn%d", id, node) }
func ruleTag(id string) string               { return "kafkachaos-" + id }

func newRunID() string {
	b := make([]byte, idLen)
	rand.Read(b)
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b)
}

// registryDir holds one owner file per live run: the pid and start time of
// the process that owns it, so a pid reused after a crash is not mistaken
// for the owner.
func registryDir() string {
	if d := os.Getenv("KAFKACHAOS_RUNS_REGISTRY"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		return "/run/kafkachaos"
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("kafkachaos-%d", os.Getuid()))
}

func ownerPath(id string) string { return filepath.Join(registryDir(), id+".owner") }

// writeOwner records this process as the owner of run id.
func writeOwner(id, label string) error {
	if err := os.MkdirAll(registryDir(), 0o755); err != nil {
		return fmt.Errorf("cluster/local: run registry: %w", err)
	}
	pid := os.Getpid()
	body := fmt.Sprintf("%d %s\n%s\n", pid, procstat.StartTime(pid), label)
	if err := os.WriteFile(ownerPath(id), []byte(body), 0o644); err != nil {
		return fmt.Errorf("cluster/local: run registry: %w", err)
	}
	return nil
}

// ownerAlive reports whether run id's owner process still exists.
func ownerAlive(id string) bool {
	b, err := os.ReadFile(ownerPath(id))
	if err != nil {
		return false
	}
	fields := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	if len(fields) != 2 {
		return false
	}
	pid, err := strconv.Atoi(fields[0])
	return err == nil && procstat.StartTime(pid) == fields[1] && fields[1] != ""
}
