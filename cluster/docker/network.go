package docker

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/netip"
	"os/exec"
	"strings"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// subnetBase is the private /16 runs take a /24 from; cluster/local uses
// 10.213.0.0/16, so the two providers never collide.
const subnetBase = "10.214."

// runNet is a run's Docker network: a bridge named after the run, a /24
// whose .1 is the host (the clients' side) and .10+n node n.
type runNet struct {
	name              string // Docker network name
	bridge            string // host bridge interface
	realbroker.Subnet        // "10.214.X.", host (gateway) at .1, node n at .10+n
	fwd               string // how the FORWARD accept rule was added, for the log
}

func bridgeName(id string) string { return "kcd" + id }

// createNetwork makes the run's network on a /24 no other network or host
// route uses, starting from one derived from the run id; the engine refuses
// overlapping pools, so a clash with a concurrent run just tries the next.
func createNetwork(ctx context.Context, cli *client.Client, id string, labels map[string]string) (*runNet, error) {
	h := fnv.New32a()
	h.Write([]byte(id))
	start := int(h.Sum32() % 250)
	routes, _ := exec.CommandContext(ctx, "ip", "-4", "route", "show", "table", "all").Output()
	var lastErr error
	for i := range 250 {
		prefix := fmt.Sprintf("%s%d.", subnetBase, 1+(start+i)%250)
		if strings.Contains(string(routes), prefix) {
			continue
		}
		w := &runNet{name: "kafkachaos-" + id, bridge: bridgeName(id),
			Subnet: realbroker.Subnet{Prefix: prefix, HostOctet: 1, NodeBase: 10}}
		_, err := cli.NetworkCreate(ctx, w.name, client.NetworkCreateOptions{
			Driver: "bridge",
			IPAM: &network.IPAM{Config: []network.IPAMConfig{{
				Subnet:  netip.MustParsePrefix(prefix + "0/24"),
				Gateway: netip.MustParseAddr(w.HostIP()),
			}}},
			Options: map[string]string{"com.docker.network.bridge.name": w.bridge},
			Labels:  labels,
		})
		if err == nil {
			return w, nil
		}
		if !strings.Contains(err.Error(), "overlap") {
			return nil, fmt.Errorf("cluster/docker: creating network %s: %w", w.name, err)
		}
		lastErr = err
	}
	return nil, fmt.Errorf("cluster/docker: no free /24 in %s0.0/16: %w", subnetBase, lastErr)
}

// addForwardRule accepts forwarding between containers on the run's bridge
// in the host FORWARD chain. Our engine runs with --iptables=false and
// leaves the policy alone, but an engine with iptables on (or anything
// else) may have set it to DROP, and with bridge-nf-call-iptables=1 that
// drops bridged traffic between brokers silently.
func addForwardRule(ctx context.Context, id string) (string, error) {
	if _, err := exec.LookPath("iptables"); err != nil {
		return "none (iptables not installed: nothing here sets a DROP policy)", nil
	}
	args := append([]string{"-w", "-I", "FORWARD", "1"}, forwardRuleSpec(id)...)
	if out, err := exec.CommandContext(ctx, "iptables", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("cluster/docker: FORWARD accept rule: %v: %s", err, out)
	}
	return "iptables FORWARD accept for " + bridgeName(id), nil
}

func forwardRuleSpec(id string) []string {
	br := bridgeName(id)
	return []string{"-i", br, "-o", br, "-m", "comment", "--comment", ruleTagPrefix + id, "-j", "ACCEPT"}
}

// removeForwardRule deletes every copy of run id's FORWARD rule and says
// how many it deleted; none left is success.
func removeForwardRule(ctx context.Context, id string) (int, error) {
	if _, err := exec.LookPath("iptables"); err != nil {
		return 0, nil
	}
	for deleted := range 10 {
		args := append([]string{"-w", "-D", "FORWARD"}, forwardRuleSpec(id)...)
		out, err := exec.CommandContext(ctx, "iptables", args...).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "does a matching rule exist") || strings.Contains(string(out), "No chain") {
				return deleted, nil
			}
			return deleted, fmt.Errorf("cluster/docker: removing FORWARD rule of run %s: %v: %s", id, err, out)
		}
	}
	return 10, fmt.Errorf("cluster/docker: FORWARD rule of run %s still present after 10 deletions", id)
}
