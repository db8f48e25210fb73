package docker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// Clock skew, the local provider's mechanism in a container: a run whose
// Spec asks for Clocks runs this package's image (it carries Debian's
// libfaketime; apache/kafka's does not), whose entrypoint preloads the
// library into the broker's JVM when KAFKACHAOS_FAKETIME is set. The JVM
// reads its offset from a control file in a host directory of the node's,
// bind-mounted at clockMount, which SkewClock rewrites; a LogAppendTime
// probe of the broker verifies every move (realbroker.AwaitClock).

// clockMount is where a node's clock directory appears in its container;
// clockFileName is the control file in it.
const (
	clockMount    = "/kafkachaos/clock"
	clockFileName = "faketime"
)

// clockCaps is CapClock unless the provider was told to run an image this
// package did not build (which has no libfaketime).
func (p *Provider) clockCaps() []cluster.Capability {
	if p.opts.Image != "" && !ownImage(p.opts.Image) {
		return nil
	}
	return []cluster.Capability{cluster.CapClock}
}

// ownImage says whether ref names an image this package builds.
func ownImage(ref string) bool { return strings.HasPrefix(ref, "kafkachaos/") }

// clockImage is the image a run with movable clocks asks EnsureImage for:
// this package's, or an error when the options name another.
func (p *Provider) clockImage(version string) (string, error) {
	if p.opts.Image == "" {
		return LocalImage(version), nil
	}
	if !ownImage(p.opts.Image) {
		return "", fmt.Errorf("cluster/docker: the run moves clocks, which needs libfaketime in the image: %s is not one of kafkachaos/ (leave the image unset to build %s)", p.opts.Image, LocalImage(version))
	}
	return p.opts.Image, nil
}

// clockDir is node n's clock directory on the host.
func (p *Provider) clockDir(n int32) string { return filepath.Join(nodeHostDir(p.id, n), "clock") }

// startClock writes node n's control file at real time and returns what
// its container needs: the environment that turns the preload on and the
// bind mount of its clock directory.
func (p *Provider) startClock(n int32) (env map[string]string, bind string, err error) {
	dir := p.clockDir(n)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("cluster/docker: %w", err)
	}
	if err := realbroker.WriteClockFile(filepath.Join(dir, clockFileName), 0); err != nil {
		return nil, "", fmt.Errorf("cluster/docker: node %d: %w", n, err)
	}
	return clockEnv(), dir + ":" + clockMount, nil
}

// clockEnv is the container environment of a broker whose wall clock
// follows the control file at clockMount.
func clockEnv() map[string]string {
	env := map[string]string{"KAFKACHAOS_FAKETIME": "1"}
	for _, kv := range realbroker.FaketimeEnv(clockMount + "/" + clockFileName) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// SkewClock sets node id's wall clock to real time plus offset and returns
// once a LogAppendTime probe of the broker reads it.
func (p *Provider) SkewClock(ctx context.Context, id int32, offset time.Duration) (cluster.ClockReading, error) {
	if _, err := p.node(id); err != nil {
		return cluster.ClockReading{}, err
	}
	if !p.clocks {
		return cluster.ClockReading{}, fmt.Errorf("cluster/docker: run %s's brokers were started without a controllable clock (cluster.Spec.Clocks): node %d's cannot move", p.id, id)
	}
	if err := realbroker.WriteClockFile(filepath.Join(p.clockDir(id), clockFileName), offset); err != nil {
		return cluster.ClockReading{}, fmt.Errorf("cluster/docker: node %d: %w", id, err)
	}
	skew, rtt, err := p.AwaitClock(ctx, id, offset)
	return cluster.ClockReading{Node: id, Skew: skew, RTT: rtt, How: realbroker.ClockProbed}, err
}
