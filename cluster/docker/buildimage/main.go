// Command buildimage makes sure the Kafka image cluster/docker runs is in
// the engine at DOCKER_HOST: apache/kafka:<version> when it can be pulled,
// else kafkachaos/kafka:<version> built locally (debootstrap + Java 17 +
// kafkadist's jars). It prints the image reference it settled on.
//
//	go run ./cluster/docker/buildimage [-version 4.4.0] [-image ref]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/kafkachaos/kafkachaos/cluster/docker"
	"github.com/kafkachaos/kafkachaos/internal/kafkadist"
)

func main() {
	version := flag.String("version", kafkadist.Version(), "Kafka version (default: KAFKA_VERSION or the pinned one)")
	image := flag.String("image", "", "image reference to use or build (default: apache/kafka, else kafkachaos/kafka)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	ref, err := docker.Image(ctx, *version, *image, logf)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ref)
}
