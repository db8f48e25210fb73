package runner

import (
	"context"
	"errors"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// A provider without lazy disks (every one but local as root) refuses the
// disk kinds before its cluster starts, naming the fault and capability.
func TestRunRefusesDiskFaultsWithoutLazyDisks(t *testing.T) {
	for _, kind := range []string{generators.KindPowerLoss, generators.KindDiskFault} {
		prov := &realLike{}
		s := smallScenario()
		s.Cluster.Provider = prov.Name()
		s = withFault(s, kind)
		provs := Providers{prov.Name(): func() (cluster.Provider, error) { return prov, nil }}
		_, err := Run(context.Background(), s, Options{RunsDir: t.TempDir(), Providers: provs})
		var u *UnsupportedFault
		if !errors.As(err, &u) || u.Kind != kind || u.Capability != cluster.CapDisk {
			t.Errorf("%s: err = %v, want the fault refused for lacking %s", kind, err, cluster.CapDisk)
		}
		if prov.starts != 0 {
			t.Errorf("%s: the cluster was started %d times before the refusal", kind, prov.starts)
		}
	}
}

// A scenario with a disk fault asks its cluster for lazy disks; one
// without does not, and the two never share a reused cluster.
func TestLazyDisksReachTheClusterSpec(t *testing.T) {
	s := smallScenario()
	plain := ClusterSpec(s, t.TempDir())
	disk := withFault(s, generators.KindPowerLoss)
	if plain.LazyDisks || !ClusterSpec(disk, t.TempDir()).LazyDisks {
		t.Errorf("LazyDisks: %v without a disk fault, %v with one; want false, true", plain.LazyDisks, ClusterSpec(disk, t.TempDir()).LazyDisks)
	}
	if reuseKey(s) == reuseKey(disk) {
		t.Errorf("reuse key %q for both: a cluster without lazy disks would serve a power loss", reuseKey(s))
	}
}
