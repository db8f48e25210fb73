package histories

import "sync"

// Moves gathers what rebalances revoked from and assigned to a group
// member between two of its ops, for the next op's Rebalance. A client's
// rebalance callbacks add to it from their goroutine while the worker
// takes from its own.
type Moves struct {
	mu sync.Mutex
	rb Rebalance
}

// Assign notes keys the group gave the member.
func (m *Moves) Assign(keys ...Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rb.Assigned = append(m.rb.Assigned, keys...)
}

// Revoke notes keys the group took from the member.
func (m *Moves) Revoke(keys ...Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rb.Revoked = append(m.rb.Revoked, keys...)
}

// Take is what moved since the last Take, nil when nothing did.
func (m *Moves) Take() *Rebalance {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.rb.Assigned)+len(m.rb.Revoked) == 0 {
		return nil
	}
	rb := m.rb
	m.rb = Rebalance{}
	return &rb
}
