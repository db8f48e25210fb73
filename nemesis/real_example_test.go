package nemesis

import (
	"context"
	"fmt"
	"time"
)

// Real-broker faults: the leader of in/0 cut from its followers (clients
// still reach it), then killed with -9 and restarted. Every start and stop
// becomes a nemesis op whose value names the target, the nodes, the leader
// and controller seen at the start, the mechanism, and what the provider's
// hook checked before the fault counted as fired ("verified") and healed
// ("heal-verified"). The provider here is
// a fake three-node cluster whose leader is 2 and controller 3; a run passes
// its local.Provider (or any provider with the hooks) the same way.
func ExampleReal() {
	prov := newFakeBrokers()
	tg := Targeting{Provider: prov, Topic: "in", Partition: 0}
	isolate, err := Real(tg, RealSpec{Kind: RealIsolateLeader})
	if err != nil {
		fmt.Println(err) // e.g. the provider has no Partitioner (loopback fallback)
		return
	}
	kill, err := Real(tg, RealSpec{Kind: RealKill, Target: TargetLeader})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := &memRecorder{}
	err = Run(context.Background(), Schedule{
		{At: 0, Duration: 10 * time.Millisecond, Fault: isolate},
		{At: 20 * time.Millisecond, Duration: 10 * time.Millisecond, Fault: kill},
	}, rec) // healed on every exit path, even a panic
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range rec.ops {
		fmt.Println(op.F, string(op.Value))
	}
	fmt.Println(prov.Calls())
	// Output:
	// partition {"fault":"isolate-leader","detail":{"controller":3,"leader":2,"nodes":[2],"target":"leader","topology":"leader | followers, clients reach both","verified":"fake cut checked"}}
	// heal {"fault":"isolate-leader","detail":{"controller":3,"heal-verified":"fake heal checked","leader":2,"nodes":[2],"target":"leader","topology":"leader | followers, clients reach both","verified":"fake cut checked"}}
	// kill {"fault":"kill","detail":{"controller":3,"leader":2,"nodes":[2],"signal":"SIGKILL","target":"leader","verified":"fake kill checked"}}
	// restart {"fault":"kill","detail":{"controller":3,"heal-verified":"fake restart checked","leader":2,"nodes":[2],"signal":"SIGKILL","target":"leader","verified":"fake kill checked"}}
	// [partition [[2] [1 3]] heal kill 2 restart 2]
}
