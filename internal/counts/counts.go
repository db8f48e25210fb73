package counts

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Counts are named counts: requests by API and answer, anomalies by name.
type Counts map[string]int64

// String is the non-zero counts as "name n" in name order, comma-separated;
// "" when there are none.
func (c Counts) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c)) {
		if c[k] != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// Add adds o to c, making c when it is nil, and returns it.
func (c Counts) Add(o Counts) Counts {
	for k, n := range o {
		if c == nil {
			c = Counts{}
		}
		c[k] += n
	}
	return c
}
