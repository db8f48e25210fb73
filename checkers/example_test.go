package checkers_test

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/checkers"
	"github.com/kafkachaos/kafkachaos/histories"
)

// A producer's acknowledged write at offset 0 is never read, although a
// consumer read offset 1: the write was lost.
func ExampleCheck() {
	h := checkers.Ops{
		{Index: 0, Process: 0, Type: histories.OK, F: histories.FSend,
			Mops: []histories.Mop{{F: histories.MSend, Key: 1, Value: 10, Offset: 0}}},
		{Index: 1, Process: 0, Type: histories.OK, F: histories.FSend,
			Mops: []histories.Mop{{F: histories.MSend, Key: 1, Value: 11, Offset: 1}}},
		{Index: 2, Process: 1, Type: histories.OK, F: histories.FPoll,
			Mops: []histories.Mop{{F: histories.MPoll, Records: map[int64][]histories.Record{
				1: {{Offset: 1, Value: 11}},
			}}}},
	}
	res, err := checkers.Check(h, checkers.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Valid, res.AnomalyTypes)
	c := res.Anomalies[checkers.LostWrite][0]
	fmt.Println(c.Ops, c.Explanation)
	// Output:
	// false [lost-write unseen]
	// [0 2] value 10 sent to key 1 by op 0 sits at offset 0, and ok ops read key 1 up to offset 1, yet no ok op ever read it
}
