package runner

import (
	"slices"
	"testing"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/generators"
)

// withCaps is a provider called name with the given capabilities.
type withCaps struct {
	realLike
	name string
	caps []cluster.Capability
}

func (p *withCaps) Name() string                       { return p.name }
func (p *withCaps) Capabilities() []cluster.Capability { return p.caps }

// A local provider on a machine without libfaketime or lazyfs draws none
// of the clock and disk kinds, and every other kind it has; with them it
// draws every kind of KindsFor.
func TestDrawableKindsLeaveOutWhatTheMachineLacks(t *testing.T) {
	bare := []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapPartition, cluster.CapProxy, cluster.CapReassign,
		cluster.CapUnregister, cluster.CapAddBroker, cluster.CapQuorum}
	machine := []string{generators.KindClockSkew, generators.KindPowerLoss, generators.KindDiskFault}
	all := generators.KindsFor("local")
	got := DrawableKinds(&withCaps{name: "local", caps: bare})
	want := slices.DeleteFunc(slices.Clone(all), func(k string) bool { return slices.Contains(machine, k) })
	if !slices.Equal(got, want) {
		t.Errorf("without clock and disk: %v, want %v", got, want)
	}
	full := append(slices.Clone(bare), cluster.CapClock, cluster.CapDisk)
	if got := DrawableKinds(&withCaps{name: "local", caps: full}); !slices.Equal(got, all) {
		t.Errorf("with clock and disk: %v, want %v", got, all)
	}
}

// versioned is a provider with the given capabilities that runs Kafka
// version.
type versioned struct {
	withCaps
	version string
}

func (p *versioned) KafkaVersion() string { return p.version }

// A local provider draws remove-voter from Kafka 3.9 and add-broker (and
// remove-broker) from 4.0, and every other kind it has on any release.
func TestDrawableKindsLeaveOutWhatTheReleaseLacks(t *testing.T) {
	caps := []cluster.Capability{cluster.CapKill, cluster.CapPause, cluster.CapPartition, cluster.CapProxy, cluster.CapReassign,
		cluster.CapUnregister, cluster.CapAddBroker, cluster.CapQuorum, cluster.CapClock, cluster.CapDisk}
	all := generators.KindsFor("local")
	without := func(ks ...string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(k string) bool { return slices.Contains(ks, k) })
	}
	for _, c := range []struct {
		version string
		want    []string
	}{
		{"3.8.1", without(generators.KindRemoveVoter, generators.KindAddBroker, generators.KindRemoveBroker)},
		{"3.9.0", without(generators.KindAddBroker, generators.KindRemoveBroker)},
		{"4.0.0", all},
	} {
		got := DrawableKinds(&versioned{withCaps{name: "local", caps: caps}, c.version})
		if !slices.Equal(got, c.want) {
			t.Errorf("Kafka %s: %v, want %v", c.version, got, c.want)
		}
	}
}
