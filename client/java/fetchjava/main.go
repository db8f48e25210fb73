// Command fetchjava fetches the Java client (kafka-clients of the pinned
// Kafka release; KAFKA_VERSION or -version overrides it) into the cache,
// compiles the client worker against it, and prints its classpath: the
// step behind `make kafka` and scripts/setup.sh for the java client, the
// same one a run with that client does on first use.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/kafkachaos/kafkachaos/client/java"
)

func main() {
	version := flag.String("version", "", "kafka-clients release (default: KAFKA_VERSION, else the pinned Kafka release)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	tc, err := java.Ensure(ctx, *version)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "java client (kafka-clients %s) ready in %s\n", tc.Version, time.Since(start).Round(time.Millisecond))
	fmt.Println(tc.Classpath)
}
