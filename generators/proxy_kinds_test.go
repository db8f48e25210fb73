package generators

import (
	"fmt"
	"slices"
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
		{Kind: KindDelayedRequests, Params: FaultParams{Requests: []string{"produce", "end-txn"}, Client: "copier", Count: 1}},
	} {
		checkValidation(t, fmt.Sprintf("%+v", f), ok(f), "")
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
		{Fault{Kind: KindLatency, Params: FaultParams{Requests: []string{"produce"}}}, "params.requests: only delayed-requests reads it"},
		{Fault{Kind: KindLatency, Params: FaultParams{Toxic: "bandwidth", BitsPerSecond: 100}}, "bits-per-second"},
		{Fault{Kind: KindDelayedRequests, Params: FaultParams{Requests: []string{"fetch"}}}, "params.requests"},
		{Fault{Kind: KindDelayedRequests, Params: FaultParams{Toxic: "latency"}}, "params.toxic: only latency reads it"},
		{Fault{Kind: KindKill, Params: FaultParams{Client: "x"}}, "params.client: only delayed-requests reads it"},
	} {
		checkValidation(t, fmt.Sprintf("%+v", tc.f), ok(tc.f), tc.field)
	}
	if s := Baseline("plain", "local", 10*time.Second); s.Proxied() {
		t.Error("a scenario without proxy faults asks for proxies")
	}
}

// The proxy kinds are drawn on every provider that starts its brokers, not
// in the simulation, with the params the draw promises: 50-300 ms of
// latency with at most 50 ms of jitter; holds of produce, and of EndTxn only
// where transactional copiers or txn queues send it.
func TestProxyKindsAreDrawn(t *testing.T) {
	for _, p := range []string{"embedded", "local", "docker"} {
		if k := KindsFor(p); !slices.Contains(k, KindLatency) || !slices.Contains(k, KindDelayedRequests) {
			t.Errorf("%s draws %v: no proxy kinds", p, k)
		}
	}
	if k := KindsFor("sim"); slices.ContainsFunc(k, isProxyKind) {
		t.Errorf("the simulation draws %v: it has no proxies", k)
	}
	drawn := map[string]int{}
	for seed := range int64(400) {
		s := RandomIn(FastSpace(), seed)
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, f := range s.Nemesis {
			p := f.Params
			switch f.Kind {
			case KindLatency:
				drawn["latency"]++
				if p.Delay.D() < 50*time.Millisecond || p.Delay.D() > 300*time.Millisecond || p.Jitter.D() > 50*time.Millisecond {
					t.Errorf("seed %d: latency %v ± %v, want 50-300 ms ± at most 50 ms", seed, p.Delay, p.Jitter)
				}
			case KindDelayedRequests:
				drawn["hold"]++
				if slices.Contains(p.Requests, "end-txn") {
					drawn["end-txn"]++
					if !sendsEndTxn(s.Workload) {
						t.Errorf("seed %d: holds %v without transactional copiers or txn queues to send EndTxn", seed, p.Requests)
					}
				}
				if p.Delay > s.Producer.DeliveryTimeout {
					break // past the timeout: TestHoldsPastTheTimeoutAreDrawn
				}
				if p.Delay.D() < 100*time.Millisecond || p.Delay.D() > s.TimeLimit.D()/4+100*time.Millisecond {
					t.Errorf("seed %d: holds %v in a %v run", seed, p.Delay, s.TimeLimit)
				}
			}
		}
	}
	for _, k := range []string{"latency", "hold", "end-txn"} {
		if drawn[k] < 10 {
			t.Errorf("400 fast draws drew %s %d times, want at least 10: %v", k, drawn[k], drawn)
		}
	}
}

// Where transactions end and the run is long enough, some holds outlast
// the producer's delivery timeout, by 0.5-3 s, for every request or the
// first six at most, in a window that lets the hold, not the heal, let
// them go; no hold outlasts it without transactions.
func TestHoldsPastTheTimeoutAreDrawn(t *testing.T) {
	sp := ShortSpace()
	sp.Kinds, sp.MinTime, sp.MaxTime, sp.MinFaults = []string{KindDelayedRequests}, 20*time.Second, time.Minute, 1
	past, brief := 0, 0
	for seed := range int64(300) {
		s := RandomIn(sp, seed)
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, f := range s.Nemesis {
			p, give := f.Params, s.Producer.DeliveryTimeout
			if p.Delay <= give {
				brief++
				continue
			}
			past++
			switch {
			case !sendsEndTxn(s.Workload):
				t.Errorf("seed %d: holds %v, past the %v timeout, without transactions", seed, p.Delay, give)
			case p.Delay < give+Duration(500*time.Millisecond) || p.Delay > give+Duration(3*time.Second) || p.Count < 0 || p.Count > 6:
				t.Errorf("seed %d: holds %d requests %v with a %v timeout; want every one (0) or 1-6, 0.5-3 s past it", seed, p.Count, p.Delay, give)
			case f.Duration.D() < p.HoldFor()+time.Second:
				t.Errorf("seed %d: holds %v in a window of %v", seed, p.Delay, f.Duration)
			}
		}
	}
	t.Logf("300 draws: %d holds past the timeout, %d brief", past, brief)
	if past < 10 || brief < 10 {
		t.Errorf("300 draws held past the timeout %d times and briefly %d times; want at least 10 each", past, brief)
	}
}

// proxyScenario is a 5 s embedded run with a transactional copy and the
// given faults.
func proxyScenario(faults ...Fault) Scenario {
	s := Baseline("proxy", "embedded", 5*time.Second).TransactionalCopy(1, 0.2, 200)
	s.Nemesis = faults
	return s
}

func at(kind string, from, to time.Duration, p FaultParams) Fault {
	return Fault{Kind: kind, Start: Duration(from), Duration: Duration(to - from), Params: p}
}

// What a proxy fault needs of the other faults and of the clients: each
// case must be refused naming the field, and its twin just beside it must
// not.
func TestProxyFaultAvailability(t *testing.T) {
	lat := FaultParams{Delay: Duration(200 * time.Millisecond), Jitter: Duration(20 * time.Millisecond)}
	sec := time.Second
	for _, tc := range []struct {
		name      string
		bad, good Scenario
		field     string
	}{
		{"two proxy faults at once",
			proxyScenario(at(KindLatency, sec, 3*sec, lat), at(KindDelayedRequests, 2*sec, 4*sec, FaultParams{})),
			proxyScenario(at(KindLatency, sec, 2*sec, lat), at(KindDelayedRequests, 2*sec, 4*sec, FaultParams{})),
			"nemesis[0].start"},
		{"two latency faults on the clients' proxies at once",
			proxyScenario(at(KindLatency, sec, 3*sec, lat), at(KindLatency, 2*sec, 4*sec, lat)),
			proxyScenario(at(KindLatency, sec, 3*sec, lat), at(KindLatency, 2*sec, 4*sec, FaultParams{Delay: lat.Delay, Link: LinkReplication})),
			"nemesis[0].start"},
		{"latency probes a killed node",
			proxyScenario(at(KindKill, sec, 3*sec, FaultParams{}), at(KindLatency, 2*sec, 4*sec, lat)),
			proxyScenario(at(KindKill, sec, 3*sec, FaultParams{}), at(KindLatency, 3*sec, 4*sec, lat)),
			"nemesis[1].start"},
		{"latency probes a paused node",
			proxyScenario(at(KindPause, 0, 2*sec, FaultParams{}), at(KindLatency, sec, 4*sec, lat)),
			proxyScenario(at(KindPause, 0, 2*sec, FaultParams{}), at(KindDelayedRequests, sec, 4*sec, FaultParams{})),
			"nemesis[1].start"},
		{"latency probes not back before the end",
			proxyScenario(at(KindLatency, 4500*time.Millisecond, 5*sec, lat)),
			proxyScenario(at(KindLatency, 4*sec, 5*sec, lat)),
			"nemesis[0].start"},
		{"EndTxn held without transactional copiers",
			func() Scenario {
				s := Baseline("proxy", "embedded", 5*time.Second)
				s.Nemesis = []Fault{at(KindDelayedRequests, sec, 2*sec, FaultParams{Requests: []string{"end-txn"}})}
				return s
			}(),
			proxyScenario(at(KindDelayedRequests, sec, 2*sec, FaultParams{Requests: []string{"end-txn"}})),
			"nemesis[0].params.requests"},
		{"commits held from consumers that do not commit",
			func() Scenario {
				s := Baseline("proxy", "embedded", 5*time.Second)
				s.Workload.Consumers, s.Workload.Mode = 1, ModeAssign
				s.Nemesis = []Fault{at(KindDelayedRequests, sec, 2*sec, FaultParams{Requests: []string{"commit"}})}
				return s
			}(),
			func() Scenario {
				s := Baseline("proxy", "embedded", 5*time.Second)
				s.Workload.Consumers = 1
				s.Nemesis = []Fault{at(KindDelayedRequests, sec, 2*sec, FaultParams{Requests: []string{"commit"}})}
				return s
			}(),
			"nemesis[0].params.requests"},
	} {
		checkValidation(t, tc.name, tc.bad, tc.field)
		checkValidation(t, tc.name+", its twin", tc.good, "")
	}
}

// A draw keeps no fault that would step while a latency fault's probes are
// out: the runner would play it only once they are back.
func TestStepsDoNotWaitOnProbes(t *testing.T) {
	lat := at(KindLatency, time.Second, 3*time.Second, FaultParams{Delay: Duration(300 * time.Millisecond)})
	// three probes of 300 ms + slack: about 1.05 s
	if !waitsOnProbes(proxyScenario(lat, at(KindLostAck, 1500*time.Millisecond, 2*time.Second, FaultParams{}))) {
		t.Error("a lost-ack 0.5 s after the latency's start does not wait on its probes")
	}
	if waitsOnProbes(proxyScenario(lat, at(KindLostAck, 2500*time.Millisecond, 3*time.Second, FaultParams{}))) {
		t.Error("a lost-ack 1.5 s after the latency's start waits on its probes")
	}
	one := lat
	one.Params.Target = "one"
	if waitsOnProbes(proxyScenario(one, at(KindLostAck, 1500*time.Millisecond, 2*time.Second, FaultParams{}))) {
		t.Error("a lost-ack 0.5 s after a latency on one proxy (one probe of ~350 ms) waits on it")
	}
	for seed := range int64(400) {
		if s := RandomIn(FastSpace(), seed); waitsOnProbes(s) {
			t.Fatalf("seed %d drew a step that waits on probes: %+v", seed, s.Nemesis)
		}
	}
}

// The defaults a fault that names its kind alone gets.
func TestProxyParamDefaults(t *testing.T) {
	if l, j := (FaultParams{}).Latency(); l != DefaultLatency || j != DefaultJitter {
		t.Errorf("default latency %v ± %v", l, j)
	}
	if l, j := (FaultParams{Delay: Duration(time.Second)}).Latency(); l != time.Second || j != 0 {
		t.Errorf("latency 1s without jitter read as %v ± %v", l, j)
	}
	if r := (FaultParams{}).HeldRequests(); !slices.Equal(r, DefaultHoldRequests()) {
		t.Errorf("default held requests %v", r)
	}
	if d := (FaultParams{}).HoldFor(); d != DefaultHold {
		t.Errorf("default hold %v", d)
	}
}
