package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// A provider without movable clocks (every one but local with libfaketime)
// refuses clock-skew before its cluster starts, naming the capability.
func TestRunRefusesClockSkewWithoutMovableClocks(t *testing.T) {
	prov := &realLike{}
	s := smallScenario()
	// room for the skew to show (about 2 s a broker) before the run ends
	s.Cluster.Provider, s.TimeLimit = prov.Name(), generators.Duration(5*time.Second)
	s = withFault(s, generators.KindClockSkew)
	provs := Providers{prov.Name(): func() (cluster.Provider, error) { return prov, nil }}
	_, err := Run(context.Background(), s, Options{RunsDir: t.TempDir(), Providers: provs})
	var u *UnsupportedFault
	if !errors.As(err, &u) || u.Kind != generators.KindClockSkew || u.Capability != cluster.CapClock {
		t.Errorf("err = %v, want clock-skew refused for lacking %s", err, cluster.CapClock)
	}
	if prov.starts != 0 {
		t.Errorf("the cluster was started %d times before the refusal", prov.starts)
	}
}

// A scenario with a clock fault asks its cluster for movable clocks; one
// without does not, and the two never share a reused cluster.
func TestClocksReachTheClusterSpec(t *testing.T) {
	s := smallScenario()
	skewed := withFault(s, generators.KindClockSkew)
	if ClusterSpec(s, t.TempDir()).Clocks || !ClusterSpec(skewed, t.TempDir()).Clocks {
		t.Errorf("Clocks: want false without a clock fault, true with one")
	}
	if reuseKey(s) == reuseKey(skewed) {
		t.Errorf("reuse key %q for both: a cluster with real clocks only would serve a clock skew", reuseKey(s))
	}
}
