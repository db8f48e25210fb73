package histgen

import (
	"fmt"
	"io"

	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/groundtruth"
)

// Config shapes a synthetic history.
type Config struct {
	Ops        int   // about this many ops; the drain and final reads come on top
	Keys       int   // keys (partitions)
	Processes  int   // client processes at any time (a crashed one is replaced by a fresh id)
	LostWrites int   // lost writes to plant
	Duplicates int   // duplicates to plant
	Seed       int64 // the same seed and config give the same history
	// TroubleOneIn lets one op in TroubleOneIn fail or time out (a timed
	// out process is replaced by a fresh id); 0 lets any op.
	TroubleOneIn int
	// CrashOneIn crashes an idle process with probability 1/CrashOneIn
	// when it is scheduled; 0 never.
	CrashOneIn int
}

// Planted is what a history holds by construction.
type Planted struct {
	Ops        int64 `json:"ops"`
	LostWrites int64 `json:"lost-writes"`
	Duplicates int64 `json:"duplicates"`
}

// workload splits the processes: half plain clients (sends, assigns,
// polls), a quarter transactional clients, the rest consumer-group members.
func (c Config) workload() (groundtruth.Config, error) {
	if c.Processes < 3 {
		return groundtruth.Config{}, fmt.Errorf("histgen: %d processes, want >= 3 (one of each role)", c.Processes)
	}
	if c.LostWrites < 0 || c.Duplicates < 0 {
		return groundtruth.Config{}, fmt.Errorf("histgen: negative anomaly count")
	}
	g := groundtruth.DefaultConfig()
	g.Keys = c.Keys
	g.Producers = c.Processes / 2
	g.TxnClients = max(1, c.Processes/4)
	g.GroupMembers = c.Processes - g.Producers - g.TxnClients
	g.TroubleOneIn, g.CrashOneIn = c.TroubleOneIn, c.CrashOneIn
	return g, nil
}

// Write streams the history of cfg to w as JSONL, closing w when it is an
// io.Closer, and returns what it planted. Fewer anomalies than asked are
// planted when the history is too short to hold them.
func Write(w io.Writer, cfg Config) (Planted, error) {
	g, err := cfg.workload()
	if err != nil {
		return Planted{}, err
	}
	hw := histories.NewWriter(w)
	p := newPlanter(cfg)
	err = groundtruth.GenerateTo(cfg.Seed, cfg.Ops, g, func(op *histories.Op) error {
		return hw.Append(p.rewrite(op))
	})
	if cerr := hw.Close(); err == nil {
		err = cerr
	}
	return p.planted, err
}
