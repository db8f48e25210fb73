package external

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster/external/externaltest"
)

// Every command's whole output comes back, on every connection, from a
// real sshd: a session's stdout and stderr are copied by two goroutines
// into one buffer, which lost whole outputs when it was not locked.
func TestShellReturnsEveryOutputOverRealSSH(t *testing.T) {
	externaltest.RequireSSHD(t)
	dir, addrs := externaltest.LoopbackSSHDs(t, 2)
	var hosts strings.Builder
	for i, a := range addrs {
		fmt.Fprintf(&hosts, "  - {address: %q, user: root, key: id_ed25519, node-id: %d, broker: \"127.0.0.1:9092\", find: \"true\", start: \"true\"}\n", a, i+1)
	}
	path := filepath.Join(dir, "inventory.yaml")
	inv := "harm: allowed\nbootstrap: [127.0.0.1:9092]\nknown-hosts: known_hosts\nhosts:\n" + hosts.String()
	if err := os.WriteFile(path, []byte(inv), 0o600); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := loaded.hostKeys()
	if err != nil {
		t.Fatal(err)
	}
	for i := range addrs {
		c, err := loaded.dial(t.Context(), i, keys)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for n := range 6 {
			out, err := shell(t.Context(), c, "in\n", "cat; echo out; echo err >&2")
			if err != nil || !strings.Contains(out, "in\n") || !strings.Contains(out, "out\n") || !strings.Contains(out, "err\n") {
				t.Fatalf("host %d, command %d: output %q (error %v), want in, out and err", i, n, out, err)
			}
		}
	}
}

// A host whose key is not the one known_hosts holds is refused.
func TestDialRefusesUnknownHostKey(t *testing.T) {
	externaltest.RequireSSHD(t)
	dir, addrs := externaltest.LoopbackSSHDs(t, 1)
	other := filepath.Join(dir, "other_known_hosts")
	if err := os.WriteFile(other, []byte(""), 0o600); err != nil {
		t.Fatal(err)
	}
	inv, err := Parse(filepath.Join(dir, "inv.yaml"), []byte(fmt.Sprintf("harm: allowed\nbootstrap: [a:1]\nknown-hosts: other_known_hosts\nhosts:\n"+
		"  - {address: %q, user: root, key: id_ed25519, node-id: 1, broker: \"a:1\", find: x, start: y}\n", addrs[0])))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := inv.hostKeys()
	if err != nil {
		t.Fatal(err)
	}
	if c, err := inv.dial(t.Context(), 0, keys); err == nil || !strings.Contains(err.Error(), "key is unknown") {
		if c != nil {
			c.Close()
		}
		t.Fatalf("dial with the host's key unknown: error %v, want it refused", err)
	}
}
