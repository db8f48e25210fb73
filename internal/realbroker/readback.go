package realbroker

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Network faults count only once read back: the providers list a node's
// nftables table (`nft list table inet kafkachaos`) or its root qdisc
// (`tc -j qdisc show`) after applying a change and compare it, with the
// checks below, to what was asked. A rule that nft accepted but that does
// not match (a set left with an old element, a chain flushed twice) is an
// error, not a fault that fired.

// TableListed says what the nft read-back compares, for the nemesis ops.
const TableListed = "nft table listed back in every namespace touched: blocked set, loss and replication chains as asked"

// QdiscListed says what the tc read-back compares, for the nemesis ops.
const QdiscListed = "root qdisc listed back on both ends of the link: tbf at the asked rate, or none after a heal"

// CheckBlocked compares the blocked set of listing with want (addresses).
func CheckBlocked(listing string, want []string) error {
	body, err := block(listing, "set", "blocked")
	if err != nil {
		return err
	}
	var got []string
	if _, after, ok := strings.Cut(body, "elements = {"); ok {
		elems, _, _ := strings.Cut(after, "}")
		for _, e := range strings.Split(elems, ",") {
			got = append(got, strings.TrimSpace(e))
		}
	}
	if !sameSet(got, want) {
		return fmt.Errorf("nft blocked set holds %v, want %v", got, want)
	}
	return nil
}

// CheckLoss compares the loss chain of listing with a drop of pct percent
// (0: no rule).
func CheckLoss(listing string, pct int) error {
	rules, err := chainRules(listing, "loss")
	if err != nil {
		return err
	}
	var want []string
	switch {
	case pct >= 100:
		want = []string{"drop"}
	case pct > 0:
		want = []string{fmt.Sprintf("numgen random mod 100 < %d drop", pct)}
	}
	if !slices.Equal(rules, want) {
		return fmt.Errorf("nft loss chain holds %q, want %q", rules, want)
	}
	return nil
}

// CheckReplication compares the replication chains of listing with the
// rules ReplicationRules renders for peers on port: two drops per chain
// naming exactly peers and port, or none.
func CheckReplication(listing string, peers []string, port int) error {
	for _, chain := range []string{ReplicationInChain, ReplicationOutChain} {
		rules, err := chainRules(listing, chain)
		if err != nil {
			return err
		}
		if len(peers) == 0 {
			if len(rules) > 0 {
				return fmt.Errorf("nft chain %s holds %q, want no rule", chain, rules)
			}
			continue
		}
		if len(rules) != 2 {
			return fmt.Errorf("nft chain %s holds %q, want 2 drops of %v on port %d", chain, rules, peers, port)
		}
		for _, r := range rules {
			if !sameSet(ipv4.FindAllString(r, -1), peers) || !strings.Contains(r, fmt.Sprintf("port %d drop", port)) {
				return fmt.Errorf("nft chain %s rule %q, want a drop of %v on port %d", chain, r, peers, port)
			}
		}
	}
	return nil
}

var ipv4 = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+`)

// block is the body of "kind name { ... }" in an nft listing: nft indents
// a table's sets and chains by one tab and closes each on a line "\t}".
func block(listing, kind, name string) (string, error) {
	_, after, ok := strings.Cut(listing, "\t"+kind+" "+name+" {")
	if !ok {
		return "", fmt.Errorf("nft listing has no %s %s", kind, name)
	}
	body, _, _ := strings.Cut(after, "\n\t}")
	return body, nil
}

// chainRules are the rules of a chain, one per line, its hook line left out.
func chainRules(listing, chain string) ([]string, error) {
	body, err := block(listing, "chain", chain)
	if err != nil {
		return nil, err
	}
	var rules []string
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "type ") {
			rules = append(rules, l)
		}
	}
	return rules, nil
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// CheckTBF compares the output of `tc -j qdisc show dev DEV` with a tbf
// root qdisc capping the link at bitsPerSecond (0: no tbf at the root). tc
// keeps the rate in bytes per second.
func CheckTBF(tcJSON string, bitsPerSecond int64) error {
	var qdiscs []qdisc
	if err := json.Unmarshal([]byte(tcJSON), &qdiscs); err != nil {
		return fmt.Errorf("tc qdisc listing %q: %w", tcJSON, err)
	}
	i := slices.IndexFunc(qdiscs, func(q qdisc) bool { return q.Root })
	switch {
	case bitsPerSecond == 0 && (i < 0 || qdiscs[i].Kind != "tbf"):
		return nil
	case bitsPerSecond == 0:
		return fmt.Errorf("root qdisc is still tbf at %d B/s", qdiscs[i].Options.Rate)
	case i < 0 || qdiscs[i].Kind != "tbf":
		return fmt.Errorf("no tbf root qdisc in %s", strings.TrimSpace(tcJSON))
	}
	if got, want := qdiscs[i].Options.Rate, bitsPerSecond/8; got < want-1 || got > want+1 {
		return fmt.Errorf("tbf rate is %d B/s, want %d B/s (%d bit/s)", got, want, bitsPerSecond)
	}
	return nil
}

// qdisc is one entry of `tc -j qdisc show`.
type qdisc struct {
	Kind    string `json:"kind"`
	Root    bool   `json:"root"`
	Options struct {
		Rate int64 `json:"rate"` // bytes per second
	} `json:"options"`
}
