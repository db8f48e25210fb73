package realbroker

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Run runs a helper command (nft, tc, ip) with stdin somewhere: inside a
// node's network namespace, or on the host. On failure its error names the
// command and carries its output.
type Run func(ctx context.Context, stdin, name string, args ...string) (string, error)

// Link is one node's network link: eth0 inside the node's namespace, whose
// commands InNode runs, and its veth peer HostDev on the host, whose
// commands OnHost runs.
type Link struct {
	InNode  Run
	OnHost  Run
	HostDev string
}

// ends are the two ends of the link: where to run tc, and on what device.
func (l Link) ends() []struct {
	run Run
	dev string
} {
	return []struct {
		run Run
		dev string
	}{{l.InNode, "eth0"}, {l.OnHost, l.HostDev}}
}

// SetRate caps both ends of the link at bitsPerSecond with a tbf qdisc (TBF)
// or, for 0, removes the cap (idempotent), then reads both ends back.
func (l Link) SetRate(ctx context.Context, bitsPerSecond int64) error {
	var errs []error
	for _, end := range l.ends() {
		if bitsPerSecond == 0 {
			errs = append(errs, IgnoreNoQdisc(end.run(ctx, "", "tc", "qdisc", "del", "dev", end.dev, "root")))
			continue
		}
		if _, err := end.run(ctx, "", "tc", append([]string{"qdisc", "replace", "dev", end.dev}, TBF(bitsPerSecond)...)...); err != nil {
			return err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, end := range l.ends() {
		out, err := end.run(ctx, "", "tc", "-j", "qdisc", "show", "dev", end.dev)
		if err == nil {
			err = CheckTBF(out, bitsPerSecond)
		}
		if err != nil {
			return fmt.Errorf("reading %s back: %w", end.dev, err)
		}
	}
	return nil
}

// Table is the nftables table (family inet) every node's namespace gets:
// its blocked set drives partitions, its loss chain packet loss.
const Table = "kafkachaos"

// BlockedRule is the nft line that fills the (flushed) blocked set with
// addrs; none renders nothing.
func BlockedRule(addrs []string) string {
	if len(addrs) == 0 {
		return ""
	}
	return "add element inet " + Table + " blocked { " + strings.Join(addrs, ", ") + " }\n"
}

// LossRule is the nft line that makes the (flushed) loss chain drop pct
// percent of incoming packets at random; 0 renders nothing.
func LossRule(pct int) string {
	switch {
	case pct >= 100: // numgen's range is 0..99: "< 100" is not accepted
		return "add rule inet " + Table + " loss drop\n"
	case pct > 0:
		return fmt.Sprintf("add rule inet %s loss numgen random mod 100 < %d drop\n", Table, pct)
	}
	return ""
}

// CheckTable lists the namespace's table (with run) and applies check to
// the listing.
func CheckTable(ctx context.Context, run Run, check func(listing string) error) error {
	out, err := run(ctx, "", "nft", "list", "table", "inet", Table)
	if err != nil {
		return fmt.Errorf("reading rules back: %w", err)
	}
	if err := check(out); err != nil {
		return fmt.Errorf("rules read back do not match: %w", err)
	}
	return nil
}

// SlowLink limits node id's link to bitsPerSecond in both directions with
// tbf qdiscs on both ends (this kernel has no netem, so this is bandwidth,
// not added latency); 0 removes the limit.
func (c *Cluster) SlowLink(ctx context.Context, id int32, bitsPerSecond int64) error {
	if bitsPerSecond < 0 {
		return fmt.Errorf("%s: link rate %d, want >= 0", c.prefix, bitsPerSecond)
	}
	if _, err := c.Index(id); err != nil {
		return err
	}
	l, err := c.net.Link(ctx, id)
	if err != nil {
		return err
	}
	if err := l.SetRate(ctx, bitsPerSecond); err != nil {
		return fmt.Errorf("%s: slow link on node %d: %w", c.prefix, id, err)
	}
	return nil
}
