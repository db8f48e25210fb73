package realbroker_test

import (
	"fmt"

	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// A provider turns a partition into the links it cuts, then applies each
// node's share in that node's namespace.
func ExamplePartitionLinks() {
	links, err := realbroker.PartitionLinks([][]int32{{realbroker.ClientNode, 1}, {2, 3}}, []int32{1, 2, 3})
	if err != nil {
		panic(err)
	}
	fmt.Println("cut:", links)
	fmt.Println("node 2 drops packets from:", realbroker.CutFrom(links, 2))
	fmt.Println("clients cut from node 1:", realbroker.ClientCut(links, 1))
	// Output:
	// cut: [[-1 2] [-1 3] [1 2] [1 3]]
	// node 2 drops packets from: [-1 1]
	// clients cut from node 1: false
}

// Both providers render the same broker configuration: a process writes it
// to server.properties, a container receives it as environment.
func ExampleProperties() {
	nodes := []realbroker.Node{{ID: 1, Host: "10.0.0.2", Port: 9092, ControllerPort: 9093}}
	props := realbroker.Properties(nodes[0], nodes, "/data", map[string]string{"log.retention.ms": "-1"})
	fmt.Println(props["listeners"])
	fmt.Println(props["controller.quorum.voters"], props["log.retention.ms"], props["offsets.topic.replication.factor"])
	// Output:
	// PLAINTEXT://10.0.0.2:9092,CONTROLLER://10.0.0.2:9093
	// 1@10.0.0.2:9093 -1 1
}

// Both providers lay a run's /24 out the same way: the host, which stands
// for the clients in every cut, at one octet and node n at a base plus n.
func ExampleSubnet() {
	s := realbroker.Subnet{Prefix: "10.214.7.", HostOctet: 1, NodeBase: 10}
	fmt.Println(s.PeerIP(2), s.PeerIP(realbroker.ClientNode))
	// Output:
	// 10.214.7.12 10.214.7.1
}
