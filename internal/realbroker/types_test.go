package realbroker_test

import (
	"context"

	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/internal/realbroker"
)

// realbroker speaks the interface package's types rather than mirrors of
// them, so a provider passes a run's topics in and the quorum out as they
// are: these fail to compile if either becomes a type of realbroker's own.
var (
	_ func(*realbroker.Cluster, context.Context) (cluster.Quorum, error)    = (*realbroker.Cluster).Quorum
	_ func(*realbroker.Cluster, context.Context, []cluster.TopicSpec) error = (*realbroker.Cluster).CreateTopicList
)
