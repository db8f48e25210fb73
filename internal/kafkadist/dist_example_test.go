package kafkadist_test

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
)

// Ensure fetches the pinned release once and then answers from the cache;
// the broker is then `java -cp <Classpath> kafka.Kafka server.properties`.
func ExampleEnsure() {
	d, err := kafkadist.Ensure(context.Background(), "") // KAFKA_VERSION or DefaultVersion
	if err != nil {
		fmt.Println(err)
		return
	}
	cmd := exec.Command("java", "-cp", d.Classpath(), "kafka.Kafka", "server.properties")
	_ = cmd // started by cluster/local
}
