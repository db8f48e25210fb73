package checkers

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Liveness holds findings about progress, not safety: they sit beside the
// anomalies and never change Valid or the observed guarantee (a hung call
// proves nothing about what the log holds).
type Liveness struct {
	// ClientHangs are client calls that outlived their timeout by a grace,
	// in history order.
	ClientHangs []ClientHang `json:"client-hangs"`
}

// ClientHang is one client-hang op of the history: which process, which
// call, its timeout and how long it had blocked.
type ClientHang struct {
	Index   int64 `json:"index"`
	Process int64 `json:"process"`
	histories.ClientHang
}

// hang records a client-hang op; a malformed one is an error naming the
// op and field (readers have checked it already, ops built in memory have
// not).
func (c *collector) hang(op *histories.Op) error {
	h, err := op.ClientHang()
	if err != nil {
		return fmt.Errorf("op index %d: %w", op.Index, err)
	}
	c.hangs = append(c.hangs, ClientHang{Index: op.Index, Process: op.Process, ClientHang: h})
	return nil
}

// liveness is nil when there is nothing to report, so that results.json
// leaves it out.
func (c *collector) liveness() *Liveness {
	if len(c.hangs) == 0 {
		return nil
	}
	return &Liveness{ClientHangs: c.hangs}
}
