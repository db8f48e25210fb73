// Command fetchkafka fetches the pinned Kafka release (KAFKA_VERSION
// overrides it) into the cache and prints its libs directory: the step
// behind `make kafka`, the same one providers run automatically.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	d, err := kafkadist.Ensure(ctx, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "kafka %s ready in %s\n", d.Version, time.Since(start).Round(time.Millisecond))
	fmt.Println(d.Libs)
}
