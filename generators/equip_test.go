package generators

import (
	"reflect"
	"testing"
	"time"
)

func TestEquipGivesWhatTheKindsAskOfTheProvider(t *testing.T) {
	for _, tc := range []struct {
		provider string
		kinds    []string
		want     Cluster
	}{
		{"local", KindsFor("local"), Cluster{ClientProxies: true, LazyDisks: true, Clocks: true, DynamicQuorum: true}},
		{"docker", KindsFor("docker"), Cluster{ClientProxies: true, LazyDisks: true, Clocks: true}},
		{"local", []string{KindKill, KindPartition, KindCrashConsumer}, Cluster{}},
		{"local", []string{KindPowerLoss}, Cluster{LazyDisks: true}},
		{"embedded", KindsFor("embedded"), Cluster{ClientProxies: true}},
		{"external", Kinds(), Cluster{}},
	} {
		c := Cluster{Provider: tc.provider, Brokers: 3}
		got := Equip(c, tc.kinds)
		tc.want.Provider, tc.want.Brokers = tc.provider, 3
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Equip(%s, %v) = %+v, want %+v", tc.provider, tc.kinds, got, tc.want)
		}
	}
}

func TestEquippedClusterAsksForItsFeaturesWithoutFaults(t *testing.T) {
	s := Baseline("equipped", "local", 10*time.Second)
	if s.Proxied() || s.LazyDisks() || s.Clocked() || s.DynamicQuorum() {
		t.Fatalf("a baseline without faults asks for a feature: %+v", s.Cluster)
	}
	s.Cluster = Equip(s.Cluster, KindsFor("local"))
	checkValidation(t, "equipped local", s, "")
	if !s.Proxied() || !s.LazyDisks() || !s.Clocked() || !s.DynamicQuorum() {
		t.Errorf("equipped %+v: proxied %v, lazy disks %v, clocks %v, dynamic quorum %v, want all", s.Cluster,
			s.Proxied(), s.LazyDisks(), s.Clocked(), s.DynamicQuorum())
	}
}

func TestClusterFeaturesNeedTheProvidersCapability(t *testing.T) {
	base := func() Scenario { return Baseline("features", "embedded", 10*time.Second) }
	checkValidations(t, base, []validation{
		{"client proxies on embedded", func(s *Scenario) { s.Cluster.ClientProxies = true }, ""},
		{"lazy disks on embedded", func(s *Scenario) { s.Cluster.LazyDisks = true }, "cluster.lazy-disks"},
		{"clocks on embedded", func(s *Scenario) { s.Cluster.Clocks = true }, "cluster.clocks"},
		{"lazy disks on local", func(s *Scenario) { s.Cluster.Provider, s.Cluster.LazyDisks = "local", true }, ""},
		{"clocks on docker", func(s *Scenario) { s.Cluster.Provider, s.Cluster.Clocks = "docker", true }, ""},
		{"client proxies on external", func(s *Scenario) { s.Cluster.Provider, s.Cluster.ClientProxies = "external", true }, "cluster.client-proxies"},
	})
}

// Shared draws are the same draws with their clusters equipped: the seed
// draws the same workload and faults, and every draw but those with
// replication proxies asks for the same cluster.
func TestSharedDrawsDifferOnlyInTheirEquippedCluster(t *testing.T) {
	sp := ShortSpace()
	sp.Provider, sp.Kinds, sp.MinFaults = "local", KindsFor("local"), 1
	shared := sp
	shared.Shared = true
	want := Equip(Cluster{Provider: "local", Brokers: sp.Brokers}, sp.Kinds)
	for seed := range int64(200) {
		plain, eq := RandomIn(sp, seed), RandomIn(shared, seed)
		if !reflect.DeepEqual(plain.Nemesis, eq.Nemesis) || !reflect.DeepEqual(plain.Workload, eq.Workload) {
			t.Fatalf("seed %d: sharing changed the draw:\n%+v\n%+v", seed, plain, eq)
		}
		if err := eq.Validate(); err != nil {
			t.Fatalf("seed %d: the equipped draw is refused: %v", seed, err)
		}
		got, wantHere := eq.Cluster, want
		got.ReplicationProxies = false
		wantHere.ClientProxies = want.ClientProxies && !addsBroker(eq) // an added broker has no proxy listener
		if !reflect.DeepEqual(got, wantHere) {
			t.Fatalf("seed %d: cluster %+v, want %+v", seed, eq.Cluster, want)
		}
	}
}
