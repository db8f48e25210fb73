package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// --cluster external and --inventory go together.
func TestInventoryFlagGoesWithExternal(t *testing.T) {
	for _, c := range []struct{ cluster, inventory, want string }{
		{"external", "", "--cluster external needs --inventory FILE"},
		{"local", "inv.yaml", "it needs --cluster external, not \"local\""},
	} {
		if _, err := providersFor(c.cluster, c.inventory); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--cluster %s --inventory %q: error %v, want %q", c.cluster, c.inventory, err, c.want)
		}
	}
	provs, err := providersFor("external", "inv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provs.New("external"); err == nil || !strings.Contains(err.Error(), "inv.yaml") {
		t.Errorf("external provider of a missing inventory: error %v, want one naming the file", err)
	}
}

// An inventory without the guard is refused before anything is contacted,
// by run and by clean alike.
func TestRunAndCleanRefuseInventoryWithoutGuard(t *testing.T) {
	inv := filepath.Join(t.TempDir(), "inv.yaml")
	if err := os.WriteFile(inv, []byte("bootstrap: [b:9092]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--cluster", "external", "--inventory", inv, "--time-limit", "1s", "--quiet"},
		{"clean", "--inventory", inv},
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch(args, &stdout, &stderr)
		if code != exitError || !strings.Contains(stderr.String(), inv+":1: harm:") {
			t.Errorf("%v: exit %d, stderr %q; want %d and the guard's error", args, code, stderr.String(), exitError)
		}
	}
}

func TestOfferedKeepsKindsTheHostsCanTake(t *testing.T) {
	got := offered([]string{"kill", "pause", "partition", "crash-producer"}, []cluster.Capability{cluster.CapKill})
	if want := []string{"kill", "crash-producer"}; !slices.Equal(got, want) {
		t.Fatalf("offered %v, want %v", got, want)
	}
}
