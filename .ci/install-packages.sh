#!/usr/bin/env bash
# Installs the Debian packages the tests need, only those missing:
# chromium for the report's browser test; maven and a Java 17 runtime to
# fetch and run real Kafka brokers; iproute2, nftables and iptables for the
# local provider's network namespaces and partitions; debootstrap to build
# the Kafka image for the docker provider (no registry is reachable).
set -euo pipefail
need=()
for pkg in chromium maven openjdk-17-jre-headless iproute2 nftables iptables debootstrap; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
