package realbroker

// Topic is one topic to create. Its fields are cluster.TopicSpec's, in the
// same order and of the same types, so a provider converts one with
// realbroker.Topic(spec); this package stays below cluster/ and cannot name
// that type.
type Topic struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16 // 0 means min(3, brokers)
	MinInsyncReplicas int   // 0 leaves the broker default
	Configs           map[string]string
}

// Topics converts topic specs of a type with Topic's fields (cluster's
// TopicSpec) to Topics.
func Topics[T ~struct {
	Name              string
	Partitions        int32
	ReplicationFactor int16
	MinInsyncReplicas int
	Configs           map[string]string
}](specs []T) []Topic {
	ts := make([]Topic, len(specs))
	for i, t := range specs {
		ts[i] = Topic(t)
	}
	return ts
}
