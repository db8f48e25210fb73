package realbroker

// Topic is one topic to create. It names the struct type itself rather than
// a new type, so that its field list is written once here and any type with
// the same fields (cluster.TopicSpec: this package stays below cluster/ and
// cannot name it) converts to it; a provider whose spec ever differs fails
// to compile at its call of Topics.
type Topic = struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16 // 0 means min(3, brokers)
	MinInsyncReplicas int   // 0 leaves the broker default
	Configs           map[string]string
}

// Topics converts topic specs of a type with Topic's fields (cluster's
// TopicSpec) to Topics.
func Topics[T ~Topic](specs []T) []Topic {
	ts := make([]Topic, len(specs))
	for i, t := range specs {
		ts[i] = Topic(t)
	}
	return ts
}
