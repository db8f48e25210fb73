#!/usr/bin/env bash
# clients-doc.sh runs the client differential (kafkachaos clients) on local
# Kafka for each of $VERSIONS and writes docs/evidence/clients/kafka-<version>/:
# CLIENTS.md, clients.html and, per cell, the run's scenario.json and
# results.json, the run directory's path in them made relative to the
# repository (histories and logs stay out: a run is made again from its
# scenario.json). The rows and columns are those where the clients'
# producers and consumers can differ: an idempotent and an acks=1
# producer, commit after processing and auto-commit, under a kill of the
# leader and under consumer crashes.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=retries-idempotence,acks-1,commit-after,auto-commit
columns=kill,crash-consumer
for v in ${VERSIONS:-4.4.0 3.9.1}; do
	out=docs/evidence/clients/kafka-$v
	rm -rf "$out"
	mkdir -p "$out"
	status=0
	KAFKA_VERSION=$v bin/kafkachaos clients --cluster local --rows "$rows" --columns "$columns" --out "$out" --quiet || status=$?
	if [ "$status" -gt 1 ]; then # 1 is a finding or a difference, which the pages list
		echo "clients-doc: kafka $v: kafkachaos clients exited $status" >&2
		exit "$status"
	fi
	find "$out/runs" -type f ! -name scenario.json ! -name results.json -delete
	find "$out/runs" -depth -type d -empty -delete
	find "$out/runs" -type f -exec sed -i "s#$PWD/##g" {} +
done
