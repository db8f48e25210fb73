package external

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// Kill SIGKILLs node id's process (the unit's, with systemd) and returns
// once it is gone. A node that does not run is left as it is.
func (p *Provider) Kill(ctx context.Context, id int32) error {
	return p.takeDown(ctx, id, realbroker.VerifyTimeout, func(h *host, pid int) string {
		if h.Unit != "" {
			return "systemctl kill -s KILL " + quote(h.Unit)
		}
		return fmt.Sprintf("kill -KILL %d", pid)
	})
}

// StopNode stops node id cleanly (the stop command, systemctl stop, or
// else SIGTERM: a controlled shutdown) and returns once its process is
// gone. A node that does not run is left as it is.
func (p *Provider) StopNode(ctx context.Context, id int32) error {
	return p.takeDown(ctx, id, stopTimeout, func(h *host, pid int) string {
		switch {
		case h.Stop != "":
			return h.Stop
		case h.Unit != "":
			return "systemctl stop " + quote(h.Unit)
		}
		return fmt.Sprintf("kill -TERM %d", pid)
	})
}

// takeDown runs the script how makes for node id's process, unless none
// runs, and waits at most limit until the process is gone.
func (p *Provider) takeDown(ctx context.Context, id int32, limit time.Duration, how func(h *host, pid int) string) error {
	h, err := p.host(id)
	if err != nil {
		return err
	}
	pid, err := h.pid(ctx)
	if err != nil || pid == 0 {
		h.setKilled(err == nil)
		return err
	}
	if _, err := h.run(ctx, "", how(h, pid)); err != nil {
		return err
	}
	h.setKilled(true)
	return h.awaitFor(ctx, pid, "gone", limit, func(states []string) bool { return len(states) == 0 || zombie(states) })
}

// stopTimeout bounds a controlled shutdown: leadership handed over and
// logs flushed take seconds, more on loaded hosts.
const stopTimeout = 2 * time.Minute

// StartNode starts a node StopNode stopped, as Restart does.
func (p *Provider) StartNode(ctx context.Context, id int32) error { return p.Restart(ctx, id) }

// Restart starts node id again (start command, or the unit) and waits
// until it listens and is registered in the cluster metadata again.
func (p *Provider) Restart(ctx context.Context, id int32) error {
	h, err := p.host(id)
	if err != nil {
		return err
	}
	script := h.Start
	if script == "" {
		script = "systemctl start " + quote(h.Unit)
	}
	if pid, err := h.pid(ctx); err != nil {
		return err
	} else if pid == 0 {
		if _, err := h.run(ctx, "", script); err != nil {
			return err
		}
	}
	h.setKilled(false)
	began := time.Now()
	exited := func() string {
		// a start command may fork and exec before find sees the node
		if time.Since(began) < startGrace {
			return ""
		}
		if pid, err := h.pid(ctx); err == nil && pid == 0 {
			return "is not running (find prints no pid)"
		}
		return ""
	}
	return p.AwaitRestart(ctx, id, exited, func() string { return h.logTail(context.WithoutCancel(ctx)) })
}

// startGrace is how long after a start command a node that find does not
// see is still taken to be starting.
const startGrace = 5 * time.Second

// Pause SIGSTOPs node id's process and returns once every thread of it is
// stopped.
func (p *Provider) Pause(ctx context.Context, id int32) error {
	return p.signal(ctx, id, "STOP", true)
}

// Resume SIGCONTs node id's process and returns once no thread is stopped.
func (p *Provider) Resume(ctx context.Context, id int32) error {
	return p.signal(ctx, id, "CONT", false)
}

func (p *Provider) signal(ctx context.Context, id int32, sig string, stop bool) error {
	h, err := p.host(id)
	if err != nil {
		return err
	}
	pid, err := h.pid(ctx)
	if err == nil && pid == 0 {
		err = fmt.Errorf("cluster/external: node %d is not running (find prints no pid)", id)
	}
	if err != nil {
		return err
	}
	if _, err := h.run(ctx, "", fmt.Sprintf("kill -%s %d", sig, pid)); err != nil {
		return err
	}
	h.mu.Lock()
	h.paused = stop
	h.mu.Unlock()
	want := func(states []string) bool {
		return len(states) > 0 && allStopped(states) == stop && anyStopped(states) == stop
	}
	return h.await(ctx, pid, "SIG"+sig+" in effect", want)
}

// threadStates lists the state line of every thread of pid ("" output
// when it is gone).
func threadStates(pid int) string {
	return fmt.Sprintf("cat /proc/%d/task/*/status 2>/dev/null | grep '^State:' || true", pid)
}

// await polls pid's thread states on h until ok accepts them, at most
// realbroker.VerifyTimeout.
func (h *host) await(ctx context.Context, pid int, what string, ok func(states []string) bool) error {
	return h.awaitFor(ctx, pid, what, realbroker.VerifyTimeout, ok)
}

// awaitFor is await bounded by limit.
func (h *host) awaitFor(ctx context.Context, pid int, what string, limit time.Duration, ok func(states []string) bool) error {
	deadline := time.Now().Add(limit)
	for {
		out, err := h.run(ctx, "", threadStates(pid))
		if err != nil {
			return err
		}
		states := strings.Split(strings.TrimSpace(out), "\n")
		if strings.TrimSpace(out) == "" {
			states = nil
		}
		if ok(states) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster/external: node %d: pid %d not %s after %s: threads %v", h.NodeID(), pid, what, limit, states)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func allStopped(states []string) bool {
	for _, s := range states {
		if !strings.Contains(s, "T (stopped)") {
			return false
		}
	}
	return true
}

func anyStopped(states []string) bool {
	for _, s := range states {
		if strings.Contains(s, "T (stopped)") {
			return true
		}
	}
	return false
}

// zombie: the process died and waits for its parent (a node started over
// SSH is init's child, which may be slow to reap).
func zombie(states []string) bool {
	for _, s := range states {
		if !strings.Contains(s, "Z (zombie)") {
			return false
		}
	}
	return true
}

func (h *host) setKilled(k bool) {
	h.mu.Lock()
	h.killed = k
	if k {
		h.paused = false
	}
	h.mu.Unlock()
}

// logTail is the end of the node's server.log, when the inventory names
// its log directory.
func (h *host) logTail(ctx context.Context) string {
	if h.LogDir == "" {
		return "(the inventory names no log-dir for this host)"
	}
	out, err := h.run(ctx, "", "tail -n 30 "+quote(h.LogDir+"/server.log"))
	if err != nil {
		return err.Error()
	}
	return out
}

// Heal removes every cut. It is idempotent.
func (p *Provider) Heal(ctx context.Context) error { return p.SetCuts(ctx, nil) }

// HealAll removes every network fault and resumes paused nodes; killed
// nodes stay down. It is idempotent.
func (p *Provider) HealAll(ctx context.Context) error {
	var errs []error
	if netOk(p.all) {
		errs = append(errs, p.Heal(ctx))
		for _, h := range p.hosts {
			errs = append(errs, p.PacketLoss(ctx, h.NodeID(), 0))
		}
	}
	for _, h := range p.hosts {
		h.mu.Lock()
		paused := h.paused
		h.mu.Unlock()
		if paused {
			errs = append(errs, p.Resume(ctx, h.NodeID()))
		}
	}
	return errors.Join(errs...)
}

func netOk(hosts []*host) bool {
	for _, h := range hosts {
		if !h.nft || !h.root {
			return false
		}
	}
	return len(hosts) > 0
}

// netOps is the provider as realbroker.Cluster reaches its hosts' networks.
type netOps struct{ *Provider }

// NoCuts is ErrNoNetworkFaults unless every host has nft and root.
func (p netOps) NoCuts() error {
	if !netOk(p.all) {
		return ErrNoNetworkFaults
	}
	return nil
}

// PeerIP is node id's host address, or the harness's as the hosts see it.
func (p netOps) PeerIP(id int32) string {
	if id == realbroker.ClientNode {
		return p.client
	}
	h, err := p.host(id)
	if err != nil {
		return ""
	}
	return h.ip
}

// ApplyBlocked makes node id's blocked set exactly blocked.
func (p netOps) ApplyBlocked(ctx context.Context, id int32, blocked []string) error {
	h, err := p.host(id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.blocked = blocked
	h.mu.Unlock()
	return p.applyTable(ctx, h, func(l string) error { return realbroker.CheckBlocked(l, blocked) })
}

// ApplyLoss makes node id drop pct percent of the packets it receives.
func (p netOps) ApplyLoss(ctx context.Context, id int32, pct int) error {
	h, err := p.host(id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.loss = pct
	h.mu.Unlock()
	return p.applyTable(ctx, h, func(l string) error { return realbroker.CheckLoss(l, pct) })
}

// Link: the hosts' links are not the harness's to shape.
func (p netOps) Link(context.Context, int32) (realbroker.Link, error) {
	return realbroker.Link{}, errors.New("cluster/external: slow links are not supported")
}

// applyTable replaces h's table with one holding its cuts and loss, or
// deletes it when there are none, in one nft transaction, then reads the
// host's tables back.
func (p netOps) applyTable(ctx context.Context, h *host, check func(listing string) error) error {
	name := TableName(p.id)
	h.mu.Lock()
	script := tableScript(name, h.sshPort(), h.blocked, h.loss)
	empty := len(h.blocked) == 0 && h.loss == 0
	h.mu.Unlock()
	if _, err := h.run(ctx, script, "nft -f -"); err != nil {
		return err
	}
	if empty {
		return h.checkNoTable(ctx, name)
	}
	out, err := h.run(ctx, "", "nft list table inet "+name)
	if err == nil {
		err = check(out)
	}
	if err != nil {
		return fmt.Errorf("host %s (node %d): rules read back: %w", h.Address, h.NodeID(), err)
	}
	return nil
}

// checkNoTable fails when h has table name.
func (h *host) checkNoTable(ctx context.Context, name string) error {
	out, err := h.run(ctx, "", "nft list tables")
	if err != nil {
		return err
	}
	if hasTable(out, name) {
		return fmt.Errorf("host %s (node %d): table inet %s still listed after its deletion", h.Address, h.NodeID(), name)
	}
	return nil
}

// hasTable reports whether `nft list tables` output lists inet table name.
func hasTable(listing, name string) bool {
	for _, l := range strings.Split(listing, "\n") {
		if strings.TrimSpace(l) == "table inet "+name {
			return true
		}
	}
	return false
}

// tableScript is the nft transaction that replaces table name with one
// dropping blocked's packets both ways and loss percent of those received,
// or deletes it when there is nothing to drop. The host's SSH port is
// exempt: a cut between the harness and a host must not cut the way the
// harness heals it.
func tableScript(name string, sshPort int, blocked []string, loss int) string {
	reset := "add table inet " + name + "\ndelete table inet " + name + "\n"
	if len(blocked) == 0 && loss == 0 {
		return reset
	}
	elements := ""
	if len(blocked) > 0 {
		elements = " elements = { " + strings.Join(blocked, ", ") + " };"
	}
	lossRule := ""
	switch {
	case loss >= 100:
		lossRule = "drop;"
	case loss > 0:
		lossRule = fmt.Sprintf("numgen random mod 100 < %d drop;", loss)
	}
	return reset + fmt.Sprintf(`table inet %s {
	set blocked { type ipv4_addr;%s }
	chain loss { %s }
	chain input { type filter hook input priority -10; policy accept; iifname "lo" accept; tcp dport %d accept; ip saddr @blocked drop; jump loss; }
	chain output { type filter hook output priority -10; policy accept; oifname "lo" accept; tcp sport %d accept; ip daddr @blocked drop; }
}
`, name, elements, lossRule, sshPort, sshPort)
}
