package groundtruth_test

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/internal/groundtruth"
)

// A seeded run: the same seed always gives the same history, ending with a
// fresh process that reads every key to its end.
func ExampleGenerateTo() {
	var ops []histories.Op
	err := groundtruth.GenerateTo(1, 100, groundtruth.SmallConfig(), func(op *histories.Op) error {
		ops = append(ops, *op)
		return nil
	})
	if err != nil {
		panic(err)
	}
	last := ops[len(ops)-1]
	fmt.Println(len(ops) >= 100, last.F, last.Type)
	// Output: true poll ok
}
