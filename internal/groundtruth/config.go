package groundtruth

import "fmt"

// Config shapes a simulated workload. The zero value is not usable; start
// from DefaultConfig or SmallConfig.
type Config struct {
	Keys         int // keys (partitions), numbered 0..Keys-1
	Producers    int // plain clients: sends, assign, polls
	TxnClients   int // transactional clients: txns mixing sends and polls
	GroupMembers int // members of consumer group Group
	MaxBatch     int // most micro-ops per send/txn and records per key per poll
	FinalBatch   int // most records per key per poll in the final read phase
	// CrashOneIn makes an idle process crash with probability 1/CrashOneIn
	// when it is scheduled; 0 disables standalone crashes.
	CrashOneIn int
	// TroubleOneIn lets only one op in TroubleOneIn draw an outcome (fail,
	// info, abort) other than ok, the others completing ok; 0 lets every op
	// draw (the workload of a fault-ridden run).
	TroubleOneIn int
}

// Group is the consumer group the simulated group members join.
const Group = "g"

// DefaultConfig is a mixed workload for large generated histories.
func DefaultConfig() Config {
	return Config{Keys: 8, Producers: 4, TxnClients: 3, GroupMembers: 3, MaxBatch: 4, FinalBatch: 128, CrashOneIn: 200}
}

// SmallConfig is a workload small enough that failing property tests shrink
// to histories a person can read.
func SmallConfig() Config {
	return Config{Keys: 2, Producers: 2, TxnClients: 1, GroupMembers: 2, MaxBatch: 3, FinalBatch: 4, CrashOneIn: 12}
}

func (c Config) clients() int { return c.Producers + c.TxnClients + c.GroupMembers }

// validate names the first field that makes c unusable.
func (c Config) validate() error {
	switch {
	case c.Keys < 1:
		return fmt.Errorf("groundtruth: Config.Keys = %d, want >= 1", c.Keys)
	case c.Producers < 0 || c.TxnClients < 0 || c.GroupMembers < 0:
		return fmt.Errorf("groundtruth: Config has a negative client count")
	case c.clients() < 1:
		return fmt.Errorf("groundtruth: Config has no clients")
	case c.MaxBatch < 1:
		return fmt.Errorf("groundtruth: Config.MaxBatch = %d, want >= 1", c.MaxBatch)
	case c.FinalBatch < 1:
		return fmt.Errorf("groundtruth: Config.FinalBatch = %d, want >= 1", c.FinalBatch)
	case c.CrashOneIn < 0:
		return fmt.Errorf("groundtruth: Config.CrashOneIn = %d, want >= 0", c.CrashOneIn)
	case c.TroubleOneIn < 0:
		return fmt.Errorf("groundtruth: Config.TroubleOneIn = %d, want >= 0", c.TroubleOneIn)
	}
	return nil
}
