package cluster_test

import (
	"encoding/json"
	"fmt"

	"github.com/kafkachaos/kafkachaos/cluster"
)

// A provider's own record of a power loss (as internal/realbroker's
// NodeLoss) becomes DiskLosses field for field, with cluster's JSON names;
// no losses are an empty list, not null.
func ExampleDiskLosses() {
	type nodeLoss struct {
		Node    int32
		Files   int
		Dropped int
		Bytes   int64
	}
	ls := cluster.DiskLosses([]nodeLoss{{Node: 1, Files: 2, Dropped: 3, Bytes: 4096}, {Node: 3, Dropped: 1, Bytes: 8}})
	b, _ := json.Marshal(ls)
	fmt.Println(string(b))
	b, _ = json.Marshal(cluster.DiskLosses([]nodeLoss(nil)))
	fmt.Println(string(b))
	// Output:
	// [{"node":1,"files":2,"dropped":3,"bytes":4096},{"node":3,"files":0,"dropped":1,"bytes":8}]
	// []
}
