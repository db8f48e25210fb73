package realbroker

import (
	"fmt"
	"slices"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// ClientNode stands for the test process in links and components.
const ClientNode = cluster.ClientNode

// Cuts are the network links of a run that are down, as pairs of node ids;
// ClientNode stands for the test process. Providers keep one Cuts
// and apply it their own way (nft sets in namespaces).

// PartitionLinks are the links to cut so that nodes in different components
// cannot exchange packets. ClientNode may appear in one component; brokers
// outside it are then cut from the clients. Every one of nodes must be in
// exactly one component.
func PartitionLinks(components [][]int32, nodes []int32) ([][2]int32, error) {
	comp := make(map[int32]int)
	for i, c := range components {
		for _, id := range c {
			if _, dup := comp[id]; dup {
				return nil, fmt.Errorf("partition: node %d in two components", id)
			}
			if id != ClientNode && !slices.Contains(nodes, id) {
				return nil, noNode(id, nodes)
			}
			comp[id] = i
		}
	}
	for _, id := range nodes {
		if _, ok := comp[id]; !ok {
			return nil, fmt.Errorf("partition: node %d is in no component", id)
		}
	}
	var links [][2]int32
	ids := append([]int32{ClientNode}, nodes...)
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			ca, okA := comp[a]
			cb, okB := comp[b]
			if okA && okB && ca != cb {
				links = append(links, [2]int32{a, b})
			}
		}
	}
	return links, nil
}

// CheckLinks says which link names an unknown node or a node and itself.
func CheckLinks(links [][2]int32, nodes []int32) error {
	for _, l := range links {
		for _, id := range l {
			if id != ClientNode && !slices.Contains(nodes, id) {
				return noNode(id, nodes)
			}
		}
		if l[0] == l[1] {
			return fmt.Errorf("cannot cut node %d from itself", l[0])
		}
	}
	return nil
}

// CutFrom lists the nodes (ClientNode included) that links cut id from.
func CutFrom(links [][2]int32, id int32) []int32 {
	var peers []int32
	for _, l := range links {
		switch id {
		case l[0]:
			peers = append(peers, l[1])
		case l[1]:
			peers = append(peers, l[0])
		}
	}
	return peers
}

// ClientCut reports whether links cut the clients from node id.
func ClientCut(links [][2]int32, id int32) bool {
	return slices.Contains(CutFrom(links, id), ClientNode)
}

func noNode(id int32, nodes []int32) error {
	return fmt.Errorf("no node %d (nodes are %v)", id, nodes)
}
