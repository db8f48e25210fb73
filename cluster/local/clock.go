package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// Clock skew: a run whose Spec asks for Clocks starts each broker JVM with
// libfaketime preloaded (Debian's faketime package), reading its offset
// from a control file in the node's directory that SkewClock rewrites.
// Only such runs pay for it: every clock read of a preloaded JVM goes
// through the library (measured here: System.currentTimeMillis 103-144 ns
// instead of 39-46, nanoTime 51-58 ns instead of 37-43). The monotonic
// clock is left real (FAKETIME_DONT_FAKE_MONOTONIC): the JVM's timers,
// sleeps and what Kafka measures with nanoTime keep working.
var _ cluster.ClockSkewer = (*Provider)(nil) // libfaketime's control file, read back by a LogAppendTime probe

// faketimeGlob is where Debian's libfaketime lives, whatever the arch.
const faketimeGlob = "/usr/lib/*/faketime/libfaketime.so.1"

// faketimeLib is the path of libfaketime, or "" when it is not installed.
func faketimeLib() string {
	m, _ := filepath.Glob(faketimeGlob)
	if len(m) == 0 {
		return ""
	}
	return m[0]
}

// clockCaps is CapClock where libfaketime is installed.
func clockCaps() []cluster.Capability {
	if faketimeLib() == "" {
		return nil
	}
	return []cluster.Capability{cluster.CapClock}
}

// clockFile is node n's libfaketime control file, tagged with the run id.
func (n *node) clockFile(runID string) string {
	return filepath.Join(n.dir, "clock-"+runID+".faketime")
}

// clockEnv is the environment of a broker JVM whose wall clock follows
// file (realbroker.FaketimeEnv says why each variable).
func clockEnv(lib, file string) []string {
	return append(append(os.Environ(), "LD_PRELOAD="+lib), realbroker.FaketimeEnv(file)...)
}

// startClocks makes the run's JVMs start with libfaketime, each at real
// time.
func (p *Provider) startClocks() error {
	lib := faketimeLib()
	if lib == "" {
		return fmt.Errorf("cluster/local: the run skews clocks, and libfaketime is not installed (Debian's faketime package: %s)", faketimeGlob)
	}
	for _, n := range p.nodes {
		if err := writeClock(n.clockFile(p.id), 0); err != nil {
			return err
		}
	}
	p.jvm.clockLib = lib
	return nil
}

// removeClocks removes the nodes' and guests' control files (Stop).
func (p *Provider) removeClocks() error {
	if p.jvm.clockLib == "" {
		return nil
	}
	p.guests.mu.Lock()
	defer p.guests.mu.Unlock()
	var errs []error
	for _, n := range slices.Concat(p.nodes, p.guests.nodes) {
		if err := os.Remove(n.clockFile(p.id)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeClock sets the offset libfaketime reads from file.
func writeClock(file string, offset time.Duration) error {
	if err := realbroker.WriteClockFile(file, offset); err != nil {
		return fmt.Errorf("cluster/local: %w", err)
	}
	return nil
}

// SkewClock sets node id's wall clock to real time plus offset and returns
// once a LogAppendTime probe of the broker reads it (realbroker.AwaitClock).
func (p *Provider) SkewClock(ctx context.Context, id int32, offset time.Duration) (cluster.ClockReading, error) {
	n, err := p.node(id)
	if err != nil {
		return cluster.ClockReading{}, err
	}
	if p.jvm.clockLib == "" {
		return cluster.ClockReading{}, fmt.Errorf("cluster/local: run %s's brokers were started without a controllable clock (cluster.Spec.Clocks): node %d's cannot move", p.id, id)
	}
	if err := writeClock(n.clockFile(p.id), offset); err != nil {
		return cluster.ClockReading{}, err
	}
	skew, rtt, err := p.AwaitClock(ctx, id, offset)
	return cluster.ClockReading{Node: id, Skew: skew, RTT: rtt, How: realbroker.ClockProbed}, err
}
