package runner

import (
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/docker"
)

// newDocker makes the "docker" provider: real Kafka brokers in containers
// (see cluster/docker). Its options come from the environment
// (KAFKACHAOS_DOCKER_IMAGE, KAFKA_VERSION, DOCKER_HOST), so a scenario file
// names only the provider; the engine is found when Start connects.
func newDocker() (cluster.Provider, error) { return docker.New(docker.Options{}), nil }
