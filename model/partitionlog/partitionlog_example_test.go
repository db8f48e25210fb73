package partitionlog_test

import (
	"fmt"

	"github.com/anishathalye/porcupine"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/model/partitionlog"
)

// Two producers append concurrently; the one invoked later was acknowledged
// at offset 0. A poll that read the other value at offset 0 is not
// consistent with one log; one that read it at offset 1 is.
func ExampleModel() {
	sends := []porcupine.Operation{
		{ClientId: 0, Call: 0, Return: 50, Input: partitionlog.Append{Value: 10}, Output: int64(1)},
		{ClientId: 1, Call: 10, Return: 40, Input: partitionlog.Append{Value: 20}, Output: int64(0)},
	}
	for _, read := range [][]histories.Record{{{Offset: 0, Value: 10}}, {{Offset: 1, Value: 10}}} {
		ops := append(sends, porcupine.Operation{ClientId: 2, Call: 60, Return: 70, Input: partitionlog.Read{}, Output: read})
		verdict := porcupine.CheckOperations(partitionlog.Model(partitionlog.KnownOffsets(ops)), ops)
		fmt.Printf("read %d at %d: linearizable %v\n", read[0].Value, read[0].Offset, verdict)
	}
	// Output:
	// read 10 at 0: linearizable false
	// read 10 at 1: linearizable true
}
