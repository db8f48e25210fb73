package nemesis_test

import (
	"context"
	"log"
	"time"

	"github.com/kafkachaos/kafkachaos/cluster/local"
	"github.com/kafkachaos/kafkachaos/histories"
	"github.com/kafkachaos/kafkachaos/nemesis"
)

// Real-broker faults on a running local cluster: the leader of in/0 cut
// from its followers (clients still reach it) for ten seconds, then killed
// with -9 and restarted. Every start and stop becomes a nemesis op whose
// value names the target, the nodes, the leader and controller seen at the
// start, and the mechanism (signal, topology, tbf).
func ExampleReal() {
	ctx := context.Background()
	var prov *local.Provider // started elsewhere: local.New(...).Start(ctx, spec)
	var rec *histories.Recorder
	tg := nemesis.Targeting{Provider: prov, Topic: "in", Partition: 0}
	isolate, err := nemesis.Real(tg, nemesis.RealSpec{Kind: nemesis.RealIsolateLeader})
	if err != nil {
		log.Fatal(err) // e.g. the provider has no Partitioner (loopback fallback)
	}
	kill, err := nemesis.Real(tg, nemesis.RealSpec{Kind: nemesis.RealKill, Target: nemesis.TargetLeader})
	if err != nil {
		log.Fatal(err)
	}
	err = nemesis.Run(ctx, nemesis.Schedule{
		{At: 0, Duration: 10 * time.Second, Fault: isolate},
		{At: 15 * time.Second, Duration: 10 * time.Second, Fault: kill},
	}, rec) // healed on every exit path, even a panic
	if err != nil {
		log.Fatal(err)
	}
}
