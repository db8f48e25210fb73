package local_test

import (
	"context"
	"log"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/local"
)

// A three-broker KRaft cluster in network namespaces, a topic that needs
// two in-sync replicas, and the faults a nemesis drives: the leader cut
// from its followers (clients still reach it), then healed.
func ExampleProvider() {
	ctx := context.Background()
	p := local.New(local.Options{}) // KAFKA_VERSION or the pinned 4.4.0
	defer p.Stop(ctx)               // removes processes, namespaces, bridge and rules
	err := p.Start(ctx, cluster.Spec{
		RunID: "example", RunDir: "runs/example",
		Topics:        []cluster.TopicSpec{{Name: "t", Partitions: 3, MinInsyncReplicas: 2}},
		BrokerConfigs: map[string]string{"unclean.leader.election.enable": "false"},
	})
	if err != nil {
		log.Fatal(err) // names the stuck step and carries every broker's log tail
	}
	leader, _ := p.Leader(ctx, "t", 0)
	var followers []int32
	for _, n := range p.Nodes() {
		if n.ID != leader {
			followers = append(followers, n.ID)
		}
	}
	_ = p.Partition(ctx, [][]int32{{leader}, followers})
	_ = p.Heal(ctx)
	_ = p.CutLinks(ctx, [][2]int32{{local.ClientNode, leader}}) // clients cut from one broker
	_ = p.HealAll(ctx)
	_ = p.Kill(ctx, leader)
	_ = p.Restart(ctx, leader)
}
