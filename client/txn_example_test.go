package client_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkachaos/kafkachaos/client"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/histories"
)

// A Copier copies input key 0 to output key 1 in transactions; each
// transaction is one txn op whose completion lists what it read, what it
// sent (the copy of each record, histories.CopyValue: its input offset
// times CopyStride plus its value; with their output offsets) and the
// offsets it committed with them.
func ExampleCopier() {
	ctx := context.Background()
	e := embedded.New()
	spec := cluster.Spec{RunID: "example-copier", Topics: []cluster.TopicSpec{{Name: "in", Partitions: 1}, {Name: "out", Partitions: 1}}}
	if err := e.Start(ctx, spec); err != nil {
		fmt.Println(err)
		return
	}
	defer e.Stop(ctx)
	keys, _ := client.NewKeyMap(map[histories.Key]client.TopicPartition{0: {Topic: "in"}, 1: {Topic: "out"}})
	rec, procs := client.NewMemRecorder(), &client.Processes{}

	p, _ := client.NewProducer(client.ProducerOptions{Bootstrap: e.Bootstrap(), Keys: keys, Recorder: rec, Processes: procs})
	for v := range int64(3) {
		p.SendAsync(ctx, 0, v, nil) // Close flushes them
	}
	p.Close(ctx)

	cp, err := client.NewCopier(ctx, client.CopierOptions{Bootstrap: e.Bootstrap(), Keys: keys,
		Pairs: map[histories.Key]histories.Key{0: 1}, Group: "copy", TransactionalID: "copier-0",
		Recorder: rec, Process: procs.Next()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cp.Close()
	for range 10 {
		typ, _ := cp.Step(ctx, 3, 2*time.Second)
		op := rec.Ops()[len(rec.Ops())-1]
		if typ != histories.OK || len(op.Mops) == 1 {
			continue // nothing read yet
		}
		fmt.Println(op.F, op.Type)
		for _, m := range op.Mops {
			switch m.F {
			case histories.MPoll:
				fmt.Println(" poll", m.Records)
			case histories.MSend:
				fmt.Printf(" send key %d value %d at offset %d\n", m.Key, m.Value, m.Offset)
			case histories.MCommit:
				fmt.Println(" commit", m.Offsets)
			}
		}
		break
	}
	// Output:
	// txn ok
	//  poll map[0:[{0 0} {1 1} {2 2}]]
	//  send key 1 value 0 at offset 0
	//  send key 1 value 10000000001 at offset 1
	//  send key 1 value 20000000002 at offset 2
	//  commit map[0:3]
}
