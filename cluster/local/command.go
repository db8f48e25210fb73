package local

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// run executes a helper command (ip, nft, tc, iptables) and returns its
// output; on failure the error names the command and carries its output.
func run(ctx context.Context, stdin string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}

// runIn executes a command inside network namespace ns.
func runIn(ctx context.Context, ns, stdin, name string, args ...string) (string, error) {
	return run(ctx, stdin, "ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

func have(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// runIn executes a command inside node n's network namespace.
func (n *node) runIn(ctx context.Context, stdin, name string, args ...string) (string, error) {
	return runIn(ctx, n.ns, stdin, name, args...)
}
