package generators

import (
	"strings"
	"testing"
	"time"
)

func TestProxyFaultParamsAreChecked(t *testing.T) {
	ok := func(f Fault) Scenario {
		s := Baseline("proxy", "local", 10*time.Second)
		f.Start, f.Duration = Duration(time.Second), Duration(2*time.Second)
		s.Nemesis = []Fault{f}
		return s
	}
	for _, f := range []Fault{
		{Kind: KindLatency},
		{Kind: KindLatency, Params: FaultParams{Toxic: "reset_peer", Delay: Duration(time.Second)}},
		{Kind: KindLatency, Params: FaultParams{Delay: Duration(200 * time.Millisecond), Jitter: Duration(50 * time.Millisecond)}},
		{Kind: KindDelayedRequests, Params: FaultParams{Requests: []string{"end-txn"}, Client: "copier", Count: 1}},
	} {
		if s := ok(f); s.Validate() != nil {
			err := s.Validate()
			t.Errorf("%+v: %v", f, err)
		}
		if !ok(f).Proxied() {
			t.Errorf("%s: the scenario does not ask for proxies", f.Kind)
		}
	}
	for _, tc := range []struct {
		f     Fault
		field string
	}{
		{Fault{Kind: KindLatency, Params: FaultParams{Toxic: "netem"}}, "params.toxic"},
		{Fault{Kind: KindLatency, Params: FaultParams{Delay: Duration(time.Millisecond), Jitter: Duration(time.Second)}}, "params.jitter"},
		{Fault{Kind: KindLatency, Params: FaultParams{Requests: []string{"produce"}}}, "delayed-requests only"},
		{Fault{Kind: KindLatency, Params: FaultParams{Toxic: "bandwidth", BitsPerSecond: 100}}, "bits-per-second"},
		{Fault{Kind: KindDelayedRequests, Params: FaultParams{Requests: []string{"fetch"}}}, "params.requests"},
		{Fault{Kind: KindDelayedRequests, Params: FaultParams{Toxic: "latency"}}, "latency only"},
		{Fault{Kind: KindKill, Params: FaultParams{Client: "x"}}, "latency and delayed-requests only"},
	} {
		s := ok(tc.f)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: %v, want an error naming %s", tc.f, err, tc.field)
		}
	}
	if s := Baseline("plain", "local", 10*time.Second); s.Proxied() {
		t.Error("a scenario without proxy faults asks for proxies")
	}
}
