package docker

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/moby/moby/client"
)

// EngineHost is where scripts/dockerd.sh's engine listens. It is used when
// DOCKER_HOST is unset and its socket exists.
const EngineHost = "unix:///run/kafkachaos-docker.sock"

// ErrNoEngine is in the error of anything that found no Docker engine
// answering: callers that only tidy up (kafkachaos clean) take it to mean
// there is nothing of this package's to remove.
var ErrNoEngine = errors.New("no Docker engine answers")

// engineSocket is EngineHost's path.
const engineSocket = "/run/kafkachaos-docker.sock"

// configureEnv points testcontainers-go (which reads its settings from the
// environment once per process) at the engine: DOCKER_HOST falls back to
// EngineHost, and the Ryuk reaper is disabled unless the user set it, since
// its image cannot be pulled without a registry; this package removes what
// it creates by run id labels instead. It returns the engine address used.
func configureEnv(logf func(string, ...any)) string {
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		if _, err := os.Stat(engineSocket); err == nil {
			host = EngineHost
			os.Setenv("DOCKER_HOST", host)
		}
	}
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
		logf("cluster/docker: Ryuk reaper disabled (its image cannot be pulled here); containers and networks are removed by run-id labels")
	}
	if host == "" {
		host = client.DefaultDockerHost
	}
	return host
}

// connect returns a client of the engine, failing with what to do when no
// engine answers.
func connect(ctx context.Context, logf func(string, ...any)) (*client.Client, error) {
	host := configureEnv(logf)
	cli, err := client.New(client.WithHost(host), client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("cluster/docker: engine client for %s: %w", host, err)
	}
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		cli.Close()
		return nil, fmt.Errorf("cluster/docker: %w at %s (start one with scripts/dockerd.sh start, or set DOCKER_HOST): %w", ErrNoEngine, host, err)
	}
	return cli, nil
}

// Image connects to the engine and returns the Kafka image a cluster of
// version would run, pulling or building it first (see EnsureImage).
func Image(ctx context.Context, version, ref string, logf func(string, ...any)) (string, error) {
	cli, err := connect(ctx, logf)
	if err != nil {
		return "", err
	}
	defer cli.Close()
	return EnsureImage(ctx, cli, version, ref, logf)
}
