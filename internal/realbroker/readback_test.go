package realbroker

import (
	"strings"
	"testing"
)

// listing is `nft list table inet kafkachaos` as nft 1.0 prints it after a
// partition (three blocked addresses, wrapped over two lines), 30% loss
// and a replication cut on port 9092 in one direction.
const listing = `table inet kafkachaos {
	set blocked {
		type ipv4_addr
		elements = { 10.213.1.2, 10.213.1.3,
			     10.213.1.254 }
	}

	chain loss {
		numgen random mod 100 < 30 drop
	}

	chain replication_in {
		ip saddr { 10.213.1.2, 10.213.1.3 } tcp dport 9092 drop
		ip saddr { 10.213.1.2, 10.213.1.3 } tcp sport 9092 drop
	}

	chain replication_out {
	}

	chain input {
		type filter hook input priority filter; policy accept;
		iifname "lo" accept
		ip saddr @blocked drop
		jump replication_in
		jump loss
	}
}
`

func TestReadBackMatchesOnlyWhatWasAsked(t *testing.T) {
	if err := CheckBlocked(listing, []string{"10.213.1.254", "10.213.1.2", "10.213.1.3"}); err != nil {
		t.Errorf("blocked set as asked: %v", err)
	}
	for _, want := range [][]string{nil, {"10.213.1.2", "10.213.1.3"}, {"10.213.1.2", "10.213.1.3", "10.213.1.254", "10.213.1.9"}} {
		if err := CheckBlocked(listing, want); err == nil {
			t.Errorf("blocked set of 3 passed as %v", want)
		}
	}
	if err := CheckLoss(listing, 30); err != nil {
		t.Errorf("30%% loss: %v", err)
	}
	for _, pct := range []int{0, 3, 100} {
		if err := CheckLoss(listing, pct); err == nil {
			t.Errorf("30%% loss passed as %d%%", pct)
		}
	}
	// Only one direction holds rules: a cut half applied is not a cut.
	err := CheckReplication(listing, []string{"10.213.1.2", "10.213.1.3"}, 9092)
	if err == nil || !strings.Contains(err.Error(), "replication_out") {
		t.Errorf("replication cut missing its output chain: %v", err)
	}
	if err := CheckReplication(listing, nil, 9092); err == nil {
		t.Error("a listing with replication drops passed as healed")
	}
	healed := strings.Replace(listing, "\t\tnumgen random mod 100 < 30 drop\n", "", 1)
	if err := CheckLoss(healed, 0); err != nil {
		t.Errorf("healed loss chain: %v", err)
	}
	if err := CheckBlocked("table inet other {\n}", nil); err == nil {
		t.Error("a listing without the blocked set passed")
	}
}

func TestReplicationReadBackOfRenderedRules(t *testing.T) {
	both := strings.Replace(listing, "\tchain replication_out {\n\t}",
		"\tchain replication_out {\n\t\tip daddr { 10.213.1.2, 10.213.1.3 } tcp dport 9092 drop\n"+
			"\t\tip daddr { 10.213.1.2, 10.213.1.3 } tcp sport 9092 drop\n\t}", 1)
	if err := CheckReplication(both, []string{"10.213.1.3", "10.213.1.2"}, 9092); err != nil {
		t.Errorf("full replication cut: %v", err)
	}
	if err := CheckReplication(both, []string{"10.213.1.2"}, 9092); err == nil {
		t.Error("a cut of two peers passed as a cut of one")
	}
	if err := CheckReplication(both, []string{"10.213.1.2", "10.213.1.3"}, 9093); err == nil {
		t.Error("a cut of port 9092 passed as one of 9093")
	}
}

func TestTBFReadBack(t *testing.T) {
	tbf := `[{"kind":"tbf","handle":"8003:","root":true,"refcnt":3,"options":{"rate":125000,"burst":4096,"lat":500000}}]`
	none := `[{"kind":"noqueue","handle":"0:","root":true,"refcnt":2,"options":{}}]`
	for _, tc := range []struct {
		out  string
		bps  int64
		pass bool
	}{
		{tbf, 1_000_000, true}, {tbf, 2_000_000, false}, {tbf, 0, false},
		{none, 0, true}, {none, 1_000_000, false}, {"not json", 0, false},
	} {
		if err := CheckTBF(tc.out, tc.bps); (err == nil) != tc.pass {
			t.Errorf("CheckTBF(%s, %d) = %v, want pass=%t", tc.out, tc.bps, err, tc.pass)
		}
	}
}
