package kafkachaos_test

import (
	"os"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/docker"
)

// The faults below the network on the docker provider, by the local
// provider's mechanisms (cluster/docker's clock.go and disk.go): clock skew
// is libfaketime preloaded into each broker's JVM in the container,
// following a control file in a bind-mounted host directory; power loss
// and disk faults are internal/lazyfs mounted on the host and bind-mounted
// as each container's data directory, a power loss being docker kill,
// unsynced writes discarded, the containers started again together. The
// experiments are the local ones (run_local_clock_test.go,
// run_local_disk_test.go); they run in the full profile only, since CI's
// short profile runs these kinds on the local provider.

// requireDockerKind is requireReal for docker in the full profile, with
// the provider offering capability c (else a skip saying why; a failure
// under CI=true).
func requireDockerKind(t *testing.T, c cluster.Capability, why string) realProfile {
	t.Helper()
	p := requireFull(t, "docker", "full profile only: CI runs these kinds on the local provider")
	if !cluster.Supports(docker.New(docker.Options{}), c) {
		msg := "the docker provider offers no " + string(c) + " here: " + why
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: not skipping)")
		}
		t.Skip(msg)
	}
	return p
}

// TestChaosDockerClockSkew is TestChaosLocalClockSkew in containers.
func TestChaosDockerClockSkew(t *testing.T) {
	p := requireDockerKind(t, cluster.CapClock, "KAFKACHAOS_DOCKER_IMAGE names an image without libfaketime")
	clockSkewClaim(t, p, "docker-clock-skew")
}

// TestChaosDockerPowerLoss is TestChaosLocalPowerLoss in containers: a
// power loss of one broker, then of every replica (the whole cluster),
// restarted together.
func TestChaosDockerPowerLoss(t *testing.T) {
	p := requireDockerKind(t, cluster.CapDisk, "lazyfs needs root, /dev/fuse and an engine on this host")
	powerLossClaim(t, p, "docker-power-loss")
}

// TestChaosDockerDiskFault is TestChaosLocalDiskFault in containers.
func TestChaosDockerDiskFault(t *testing.T) {
	p := requireDockerKind(t, cluster.CapDisk, "lazyfs needs root, /dev/fuse and an engine on this host")
	diskFaultClaim(t, p, "docker-disk-fault")
}
