package external

import (
	"strings"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
)

const goodInventory = `harm: allowed
bootstrap: [10.0.0.1:9092]
known-hosts: known_hosts
hosts:
  - address: 10.0.0.1
    user: kafka
    key: id_ed25519
    node-id: 1
    broker: 10.0.0.1:9092
    systemd-unit: kafka
`

func TestInventoryParses(t *testing.T) {
	inv, err := Parse("/etc/kc/inv.yaml", []byte(goodInventory))
	if err != nil {
		t.Fatal(err)
	}
	h := inv.Hosts[0]
	if *h.NodeID != 1 || h.sshAddr() != "10.0.0.1:22" || !h.IsBroker() || inv.file(h.Key) != "/etc/kc/id_ed25519" {
		t.Fatalf("host read as %+v (ssh %s, key %s)", h, h.sshAddr(), inv.file(h.Key))
	}
}

func TestInventoryReadsJSON(t *testing.T) {
	js := `{"harm": "allowed", "bootstrap": ["b:9092"], "insecure-ignore-host-key": true,
 "hosts": [{"address": "b:2222", "user": "root", "key": "k", "node-id": 3, "broker": "b:9092", "find": "pgrep java", "start": "x"}]}`
	inv, err := Parse("inv.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if got := inv.Hosts[0]; got.sshPort() != 2222 || *got.NodeID != 3 {
		t.Fatalf("host read as %+v", got)
	}
}

// Each bad inventory's error names the file, the line and the field.
func TestInventoryErrorsNameFileLineField(t *testing.T) {
	for _, c := range []struct{ name, edit, from, want string }{
		{"no guard", "", "harm: allowed\n", "inv.yaml:1: harm: is \"\""},
		{"guard misspelt", "harm: yes\n", "harm: allowed\n", "inv.yaml:1: harm: is \"yes\""},
		{"password", "    password: secret\n    key: id_ed25519\n", "    key: id_ed25519\n", "inv.yaml:7: hosts[0].password: passwords are never read"},
		{"no key", "", "    key: id_ed25519\n", "inv.yaml:5: hosts[0].key: is empty"},
		{"no node id", "", "    node-id: 1\n", "inv.yaml:5: hosts[0].node-id: is missing"},
		{"bad broker", "    broker: nowhere\n", "    broker: 10.0.0.1:9092\n", "inv.yaml:9: hosts[0].broker: \"nowhere\""},
		{"unknown field", "    sytemd-unit: kafka\n", "    systemd-unit: kafka\n", "inv.yaml: line 10: field sytemd-unit not found"},
		{"no host key policy", "", "known-hosts: known_hosts\n", "inv.yaml:1: known-hosts: is empty"},
		{"no way to find", "    start: x\n", "    systemd-unit: kafka\n", "inv.yaml:5: hosts[0].find: is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("inv.yaml", []byte(strings.Replace(goodInventory, c.from, c.edit, 1)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestTableScriptExemptsSSHAndDeletesWhenEmpty(t *testing.T) {
	if got := tableScript("kafkachaos_x", 22, nil, 0); got != "add table inet kafkachaos_x\ndelete table inet kafkachaos_x\n" {
		t.Fatalf("empty table script %q, want only the deletion", got)
	}
	s := tableScript("kafkachaos_x", 2222, []string{"10.0.0.2"}, 0)
	for _, want := range []string{"tcp dport 2222 accept; ip saddr @blocked drop", "elements = { 10.0.0.2 }", "tcp sport 2222 accept; ip daddr @blocked drop"} {
		if !strings.Contains(s, want) {
			t.Fatalf("table script lacks %q:\n%s", want, s)
		}
	}
}

// The nemesis ops say what a network fault on the hosts checked, not what
// the local provider's namespaces do.
func TestVerifiedNamesTheHosts(t *testing.T) {
	p := New(&Inventory{}, nil)
	for _, e := range []cluster.Effect{cluster.EffectCut, cluster.EffectHeal} {
		if got := p.Verified(e); !strings.Contains(got, "on every host over SSH") {
			t.Errorf("Verified(%s) = %q, want the hosts named", e, got)
		}
	}
	if got := p.Verified(cluster.EffectKill); !strings.Contains(got, "over SSH") {
		t.Errorf("Verified(kill) = %q", got)
	}
}
