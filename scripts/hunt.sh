#!/usr/bin/env bash
# hunt.sh runs the KAFKA-17754 hunt of docs/FINDINGS.md: one explore
# campaign of the txn space per line, one line after another, on local
# brokers (root), each for DURATION, seed 17754, a cluster shared by its
# draws. A line is KAFKA_VERSION:CLIENT (CLIENT as explore's --client).
#
#   scripts/hunt.sh [LINE...]    default: every line below
#
# Each campaign writes OUT/<client>-kafka-<version>/ (campaign.json,
# report.txt, the kept run directories of violating and not-live draws
# under runs/) and its progress to log.txt beside them. The summary line
# of each (report.txt's first line) says how many draws held requests past
# their transaction's end and what the brokers answered.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30m}
OUT=${OUT:-runs/hunt}
lines=("$@")
[ ${#lines[@]} -gt 0 ] || lines=(3.3.2:java@3.8.0 3.3.2:librdkafka 3.6.2:java@3.8.0 3.6.2:librdkafka
	3.9.1:java@3.8.0 3.9.1:librdkafka 4.4.0:librdkafka 4.4.0:java@4.4.0)
status=0
for line in "${lines[@]}"; do
	version=${line%%:*} client=${line#*:}
	dir="$OUT/${client/@/-}-kafka-$version"
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== $client on Kafka $version for $DURATION: $dir"
	KAFKA_VERSION=$version bin/kafkachaos explore --cluster local --space txn --client "$client" \
		--duration "$DURATION" --seed 17754 --out "$dir" --runs "$dir/runs" >"$dir/log.txt" 2>&1 || status=1
	head -1 "$dir/report.txt" 2>/dev/null || tail -3 "$dir/log.txt"
done
exit $status
