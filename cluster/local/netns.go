package local

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkachaos/kafkachaos/internal/flock"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// subnetBase is the private /16 runs take a /24 from. Addresses in it exist
// only on this run's bridge and inside its namespaces.
const subnetBase = "10.213."

// hostOctet is the host's address on the bridge: the clients' side.
const hostOctet = 254

// nsTable is the nftables table each node's namespace gets at setup. The
// blocked set drives partitions (replaced as a whole, so heals are
// idempotent), the loss chain packet loss, the replication chains cuts of
// the broker listener alone (realbroker.ReplicationRules rewrites them).
const nsTable = `table inet kafkachaos {
	set blocked { type ipv4_addr; }
	chain loss { }
	chain replication_in { }
	chain replication_out { }
	chain input { type filter hook input priority 0; policy accept; iifname "lo" accept; ip saddr @blocked drop; jump replication_in; jump loss; }
	chain output { type filter hook output priority 0; policy accept; oifname "lo" accept; ip daddr @blocked drop; jump replication_out; }
}
`

// network is a run's bridge, its subnet and the host FORWARD rule.
type network struct {
	id                string
	realbroker.Subnet        // "10.213.X.", host at hostOctet, node n at n
	fwd               string // how the FORWARD accept rule was added, for the log
}

// setupNetwork creates the bridge with the host address and the FORWARD
// accept rule. Subnet choice is serialised across runs by a lock file.
func setupNetwork(ctx context.Context, id string) (*network, error) {
	if err := os.MkdirAll(registryDir(), 0o755); err != nil {
		return nil, err
	}
	unlock, err := flock.Lock(filepath.Join(registryDir(), ".net.lock"))
	if err != nil {
		return nil, fmt.Errorf("cluster/local: %w", err)
	}
	defer unlock()
	w := &network{id: id, Subnet: realbroker.Subnet{HostOctet: hostOctet}}
	if w.Prefix, err = freeSubnet(ctx, id); err != nil {
		return nil, err
	}
	br := bridgeName(id)
	for _, args := range [][]string{
		{"link", "add", br, "type", "bridge"},
		{"addr", "add", w.HostIP() + "/24", "dev", br},
		{"link", "set", br, "up"},
	} {
		if _, err := run(ctx, "", "ip", args...); err != nil {
			return nil, fmt.Errorf("cluster/local: bridge: %w", err)
		}
	}
	if w.fwd, err = addForwardRule(ctx, id); err != nil {
		return nil, err
	}
	return w, nil
}

// freeSubnet picks a /24 of subnetBase that no address or route on the host
// uses, starting from one derived from the run id.
func freeSubnet(ctx context.Context, id string) (string, error) {
	addrs, err := run(ctx, "", "ip", "-4", "-o", "addr", "show")
	if err != nil {
		return "", err
	}
	routes, err := run(ctx, "", "ip", "-4", "route", "show", "table", "all")
	if err != nil {
		return "", err
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	start := int(h.Sum32() % 250)
	for i := range 250 {
		prefix := fmt.Sprintf("%s%d.", subnetBase, 1+(start+i)%250)
		if !strings.Contains(addrs, prefix) && !strings.Contains(routes, prefix) {
			return prefix, nil
		}
	}
	return "", fmt.Errorf("cluster/local: every %s0.0/16 subnet is in use", subnetBase)
}

// addNode creates node n's namespace, its veth pair onto the bridge, its
// address, and its nftables table.
func (w *network) addNode(ctx context.Context, n int32, withNft bool) error {
	ns, veth, peer := nsName(w.id, n), vethName(w.id, n), vpeerName(w.id, n)
	steps := [][]string{
		{"netns", "add", ns},
		{"link", "add", veth, "type", "veth", "peer", "name", peer},
		{"link", "set", peer, "netns", ns},
		{"link", "set", veth, "master", bridgeName(w.id)},
		{"link", "set", veth, "up"},
		{"netns", "exec", ns, "ip", "link", "set", peer, "name", "eth0"},
		{"netns", "exec", ns, "ip", "addr", "add", w.NodeIP(n) + "/24", "dev", "eth0"},
		{"netns", "exec", ns, "ip", "link", "set", "eth0", "up"},
		{"netns", "exec", ns, "ip", "link", "set", "lo", "up"},
	}
	for _, args := range steps {
		if _, err := run(ctx, "", "ip", args...); err != nil {
			return fmt.Errorf("cluster/local: node %d network: %w", n, err)
		}
	}
	if withNft {
		if _, err := runIn(ctx, ns, nsTable, "nft", "-f", "-"); err != nil {
			return fmt.Errorf("cluster/local: node %d nftables: %w", n, err)
		}
	}
	return nil
}

// addForwardRule accepts forwarding on the run's bridge in the host FORWARD
// chain: once Docker's engine has run, that chain's policy is DROP and, with
// bridge-nf-call-iptables=1, bridged traffic between our namespaces would be
// dropped silently.
func addForwardRule(ctx context.Context, id string) (string, error) {
	br, tag := bridgeName(id), ruleTag(id)
	if have("nft") {
		// No FORWARD chain means nothing filters forwarded traffic; adding a
		// rule would create the table and leave it behind.
		if _, err := run(ctx, "", "nft", "list", "chain", "ip", "filter", "FORWARD"); err != nil {
			return "none (no ip filter FORWARD chain: nothing drops bridged traffic)", nil
		}
	}
	if have("iptables") { // the tool Docker used, whichever backend it is
		_, err := run(ctx, "", "iptables", "-w", "-I", "FORWARD", "1", "-i", br, "-o", br,
			"-m", "comment", "--comment", tag, "-j", "ACCEPT")
		if err != nil {
			return "", fmt.Errorf("cluster/local: FORWARD accept rule: %w", err)
		}
		return "iptables", nil
	}
	if have("nft") {
		_, err := run(ctx, "", "nft", "insert", "rule", "ip", "filter", "FORWARD",
			"iifname", br, "oifname", br, "accept", "comment", `"`+tag+`"`)
		if err != nil {
			return "", fmt.Errorf("cluster/local: FORWARD accept rule: %w", err)
		}
		return "nft", nil
	}
	return "none (neither iptables nor nft installed)", nil
}
