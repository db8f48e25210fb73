package external

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Clean removes, from every host of inv, what runs left behind: the nft
// tables of run id (of every run when id is ""), and a stop of each node's
// process (SIGCONT, harmless to a running one). A harness that crashed
// mid-fault leaves both; a node it killed is not started again, as the
// user decides that. It returns what it removed.
func Clean(ctx context.Context, inv *Inventory, id string) ([]string, error) {
	keys, err := inv.hostKeys()
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for i := range inv.Hosts {
		conn, err := inv.dial(ctx, i, keys)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		h := &host{Host: inv.Hosts[i], index: i, conn: conn}
		r, err := h.clean(ctx, id)
		removed, errs = append(removed, r...), append(errs, err)
		conn.Close()
	}
	return removed, errors.Join(errs...)
}

// clean removes h's tables of run id (every run's for "") and resumes its
// node.
func (h *host) clean(ctx context.Context, id string) ([]string, error) {
	var removed []string
	out, err := h.run(ctx, "", "nft list tables")
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(out, "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(l), "table inet ")
		if !ok || !strings.HasPrefix(name, tablePrefix) || (id != "" && name != TableName(id)) {
			continue
		}
		if _, err := h.run(ctx, "", "nft delete table inet "+name); err != nil {
			return removed, err
		}
		if err := h.checkNoTable(ctx, name); err != nil {
			return removed, err
		}
		removed = append(removed, fmt.Sprintf("nft table inet %s on %s", name, h.Address))
	}
	pid, err := h.pid(ctx)
	if err != nil || pid == 0 {
		return removed, err
	}
	stopped, err := h.run(ctx, "", threadStates(pid))
	if err != nil || !anyStopped(strings.Split(stopped, "\n")) {
		return removed, err
	}
	if _, err := h.run(ctx, "", fmt.Sprintf("kill -CONT %d", pid)); err != nil {
		return removed, err
	}
	return append(removed, fmt.Sprintf("SIGSTOP of node %d (pid %d) on %s", h.NodeID(), pid, h.Address)), nil
}
