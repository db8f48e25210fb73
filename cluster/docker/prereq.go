package docker

import (
	"context"
	"os"
	"os/exec"
)

// Missing lists what this machine lacks to run the docker provider with its
// faults: root and nft (rules are written inside the containers' network
// namespaces from the host) and an engine that answers. Tests skip on a
// developer's machine that lacks them and fail under CI, where .ci/run
// starts the engine.
func Missing(ctx context.Context) []string {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (faults enter the containers' network namespaces)")
	}
	if _, err := exec.LookPath("nft"); err != nil {
		missing = append(missing, "nft (Debian's nftables)")
	}
	cli, err := connect(ctx, func(string, ...any) {})
	if err != nil {
		return append(missing, err.Error())
	}
	cli.Close()
	return missing
}
