package cluster

// KafkaVersioner is a provider that knows, before Start, the Kafka release
// its brokers will run ("4.4.0"): what lets a scenario that needs a newer
// release be refused before any broker starts.
type KafkaVersioner interface {
	KafkaVersion() string
}
