#!/usr/bin/env bash
# Fetches the pinned Apache Kafka jars (KAFKA_VERSION overrides the version)
# from Maven Central into the kafkachaos cache and prints the libs directory.
# The same step runs automatically when the local provider starts.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./internal/kafkadist/fetchkafka "$@"
