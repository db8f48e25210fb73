package generators_test

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/generators"
)

// A long run's scenario comes from a seed; the same seed always gives the
// same scenario, which is what makes a run replayable from its seed alone.
func ExampleRandom() {
	s := generators.Random(42)
	fmt.Println(s.Validate() == nil, s.Name, s.Cluster.Provider)
	fmt.Println(generators.Random(42).TimeLimit == s.TimeLimit)
	// Output:
	// true random-42 embedded
	// true
}
