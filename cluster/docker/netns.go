package docker

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// nsTable is the nftables table each container's network namespace gets
// (the same shape as cluster/local's): the blocked set drives partitions
// (replaced as a whole, so heals are idempotent), the loss chain packet
// loss. It is installed after every (re)start: a restarted container gets
// a fresh namespace.
const nsTable = `table inet kafkachaos {
	set blocked { type ipv4_addr; }
	chain loss { }
	chain input { type filter hook input priority 0; policy accept; iifname "lo" accept; ip saddr @blocked drop; jump loss; }
	chain output { type filter hook output priority 0; policy accept; oifname "lo" accept; ip daddr @blocked drop; }
}
`

// hostNetns, as inNetns's pid, runs the command in this process's own
// network namespace.
const hostNetns = 0

// inNetns runs a host binary inside the network namespace of process pid
// (nsenter -n: only the network namespace, so the host's nft and tc are
// used and the image needs neither).
func inNetns(ctx context.Context, pid int, stdin string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	if pid != hostNetns {
		cmd = exec.CommandContext(ctx, "nsenter", append([]string{"-t", strconv.Itoa(pid), "-n", name}, args...)...)
	}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("netns of pid %d: %s %s: %v: %s", pid, name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// netnsRun is inNetns for process pid as a realbroker.Run.
func netnsRun(pid int) realbroker.Run {
	return func(ctx context.Context, stdin, name string, args ...string) (string, error) {
		return inNetns(ctx, pid, stdin, name, args...)
	}
}

// nftScript renders everything a node's namespace should hold: its blocked
// set exactly blocked and its loss chain dropping pct percent of incoming
// packets. The table is dropped and redefined in the same transaction
// ("add" first so that "delete" never fails), so applying a script twice
// or to a fresh namespace gives the same rules: idempotent heals and
// re-application after a restart come for free.
func nftScript(blocked []string, pct int) string {
	var b strings.Builder
	b.WriteString("add table inet kafkachaos\ndelete table inet kafkachaos\n")
	b.WriteString(nsTable)
	b.WriteString(realbroker.BlockedRule(blocked))
	b.WriteString(realbroker.LossRule(pct))
	return b.String()
}

// hostVeth is the host end of the container's eth0: "eth0@ifN" inside
// names the peer's index N on the host.
func hostVeth(ctx context.Context, pid int) (string, error) {
	out, err := inNetns(ctx, pid, "", "ip", "-o", "link", "show", "eth0")
	if err != nil {
		return "", err
	}
	_, after, ok := strings.Cut(out, "eth0@if")
	if !ok {
		return "", fmt.Errorf("eth0 has no peer index in %q", strings.TrimSpace(out))
	}
	idx, _, _ := strings.Cut(after, ":")
	links, err := exec.CommandContext(ctx, "ip", "-o", "link", "show").Output()
	if err != nil {
		return "", fmt.Errorf("ip -o link show: %w", err)
	}
	for _, line := range strings.Split(string(links), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.TrimSuffix(f[0], ":") == idx {
			name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
			return name, nil
		}
	}
	return "", fmt.Errorf("no host interface with index %s", idx)
}
