package explore

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of N disjoint streams of a campaign's draws: shard I of N
// (1 <= I <= N) makes draws I-1, I-1+N, I-1+2N, ... of the campaign's
// seed. The shards of a campaign never make the same draw, and N shards
// bounded by the same total of draws make, together, exactly the draws of
// the unsharded campaign of that total. The zero value is the whole
// campaign (1/1).
type Shard struct{ I, N int }

// ParseShard reads a --shard value, I/N.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, ierr := strconv.Atoi(is)
	n, nerr := strconv.Atoi(ns)
	if !ok || ierr != nil || nerr != nil {
		return Shard{}, fmt.Errorf("shard %q: want I/N, e.g. 2/4", s)
	}
	if n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want 1 <= I <= N", s)
	}
	return Shard{I: i, N: n}, nil
}

func (sh Shard) whole() Shard {
	if sh.N == 0 {
		return Shard{I: 1, N: 1}
	}
	return sh
}

// Index is the campaign draw that is sh's k-th (from 0).
func (sh Shard) Index(k int) int {
	w := sh.whole()
	return w.I - 1 + k*w.N
}

// Owns reports whether draw i of the campaign is sh's.
func (sh Shard) Owns(i int) bool {
	w := sh.whole()
	return i%w.N == w.I-1
}

func (sh Shard) String() string {
	w := sh.whole()
	return fmt.Sprintf("%d/%d", w.I, w.N)
}

// MarshalText writes sh as I/N.
func (sh Shard) MarshalText() ([]byte, error) { return []byte(sh.String()), nil }

// UnmarshalText reads I/N.
func (sh *Shard) UnmarshalText(b []byte) error {
	p, err := ParseShard(string(b))
	*sh = p
	return err
}
