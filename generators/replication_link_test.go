package generators

import (
	"strings"
	"testing"
	"time"
)

// withFaults is a local scenario of 10 s with faults, each 1-3 s.
func withFaults(fs ...Fault) Scenario {
	s := Baseline("replication", "local", 10*time.Second)
	for i := range fs {
		fs[i].Start, fs[i].Duration = Duration(time.Second), Duration(2*time.Second)
	}
	s.Nemesis = fs
	return s
}

// A latency fault on the replication link asks for the brokers' proxies,
// not the clients'; the cluster can ask for them with no fault (a
// baseline); other links and other kinds' links are refused.
func TestReplicationLinkIsChecked(t *testing.T) {
	repl := Fault{Kind: KindLatency, Params: FaultParams{Link: LinkReplication, Target: "leader",
		Delay: Duration(300 * time.Millisecond), Jitter: Duration(30 * time.Millisecond)}}
	s := withFaults(repl)
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !s.ReplicationProxied() || s.Proxied() {
		t.Errorf("replication latency: replication proxied %v, clients proxied %v; want true, false", s.ReplicationProxied(), s.Proxied())
	}
	clients := withFaults(Fault{Kind: KindLatency, Params: FaultParams{Link: LinkClients}})
	if err := clients.Validate(); err != nil || clients.ReplicationProxied() || !clients.Proxied() {
		t.Errorf("client latency: %v, replication proxied %v, clients proxied %v; want nil, false, true",
			err, clients.ReplicationProxied(), clients.Proxied())
	}
	base := Baseline("plain", "local", 10*time.Second)
	if base.ReplicationProxied() {
		t.Error("a scenario without the link or the cluster setting asks for replication proxies")
	}
	base.Cluster.ReplicationProxies = true
	if !base.ReplicationProxied() {
		t.Error("cluster.replication-proxies does not ask for replication proxies")
	}
	for _, tc := range []struct {
		f     Fault
		field string
	}{
		{Fault{Kind: KindLatency, Params: FaultParams{Link: "controller"}}, "params.link"},
		{Fault{Kind: KindDelayedRequests, Params: FaultParams{Link: LinkReplication}}, "only latency reads it"},
		{Fault{Kind: KindKill, Params: FaultParams{Link: LinkReplication}}, "only latency reads it"},
	} {
		s := withFaults(tc.f)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: %v, want an error naming %s", tc.f, err, tc.field)
		}
	}
}

// Cuts by peer address are refused on a run whose brokers replicate
// through proxies (they would not cut replication); faults on every packet
// of a node, kills and pauses are not.
func TestCutsByAddressRefusedWithReplicationProxies(t *testing.T) {
	repl := Fault{Kind: KindLatency, Params: FaultParams{Link: LinkReplication, Target: "leader"}}
	for _, kind := range cutsByAddress() {
		f := Fault{Kind: kind, Params: FaultParams{Target: "one"}}
		if kind == KindPartition || kind == KindIsolateLeader || kind == KindIsolateLeaderReplication || kind == KindBridge {
			f.Params.Target = ""
		}
		if one := withFaults(f); one.Validate() != nil {
			t.Fatalf("%s alone: %v", kind, one.Validate())
		}
		s := withFaults(f, repl)
		s.Nemesis[1].Start = Duration(5 * time.Second)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), "nemesis[0].kind") || !strings.Contains(err.Error(), "replicate through the harness's proxies") {
			t.Errorf("%s with replication latency: %v, want nemesis[0] refused", kind, err)
		}
		alone := withFaults(f)
		alone.Cluster.ReplicationProxies = true
		if err := alone.Validate(); err == nil {
			t.Errorf("%s on a cluster with replication proxies: accepted", kind)
		}
	}
	for _, f := range []Fault{{Kind: KindPacketLoss, Params: FaultParams{Target: "one", Percent: 10}},
		{Kind: KindSlowLink, Params: FaultParams{Target: "one", BitsPerSecond: 1 << 20}}, {Kind: KindPause, Params: FaultParams{Target: "one"}}} {
		s := withFaults(f, repl)
		s.Nemesis[1].Start = Duration(5 * time.Second)
		if err := s.Validate(); err != nil {
			t.Errorf("%s with replication latency: %v, want it accepted", f.Kind, err)
		}
	}
}
