package docker_test

import (
	"context"
	"fmt"
	"os"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/docker"
)

// A three-broker containerized cluster with one topic; a partition cuts
// broker 3 from the others and from the clients, and Heal removes it.
// It needs an engine (scripts/dockerd.sh start) and root, so it has no
// Output line and only compiles under go test.
func Example() {
	ctx := context.Background()
	p := docker.New(docker.Options{})
	err := p.Start(ctx, cluster.Spec{
		RunID:  "example",
		RunDir: os.TempDir(), // broker logs land in <RunDir>/kafka-<id>/n<N>/broker.log
		Topics: []cluster.TopicSpec{{Name: "orders", Partitions: 3, MinInsyncReplicas: 2}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Stop(ctx) // removes the containers, the network and the FORWARD rule

	fmt.Println("bootstrap.servers =", p.Bootstrap(), "image", p.Image())
	if err := p.Partition(ctx, [][]int32{{docker.ClientNode, 1, 2}, {3}}); err != nil {
		fmt.Println(err)
	}
	if err := p.HealAll(ctx); err != nil {
		fmt.Println(err)
	}
}
