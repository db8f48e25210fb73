#!/bin/bash
# Entrypoint of the kafkachaos/kafka image: a KRaft node configured from the
# environment the way apache/kafka's image is. Every KAFKA_* variable except
# the JVM ones becomes a server.properties key: strip KAFKA_, lower-case,
# "___" -> "-", "__" -> "_", "_" -> "." (KAFKA_NODE_ID -> node.id,
# KAFKA_LISTENER_SECURITY_PROTOCOL_MAP -> listener.security.protocol.map).
# CLUSTER_ID formats the storage on first start; later starts keep it.
set -euo pipefail

KAFKA_HOME=/opt/kafka
CONF="${KAFKACHAOS_SERVER_PROPERTIES:-/opt/kafka/config/server.properties}"

prop_name() {
	local n="${1#KAFKA_}"
	n="${n,,}"
	n="${n//___/-}"
	n="${n//__/@}" # placeholder: "_" must not turn into "." below
	n="${n//_/.}"
	printf '%s' "${n//@/_}"
}

write_properties() {
	: >"$CONF"
	local name
	for name in $(compgen -e); do
		case "$name" in
		KAFKA_HEAP_OPTS | KAFKA_JVM_PERFORMANCE_OPTS | KAFKA_OPTS | KAFKA_LOG4J_OPTS | \
			KAFKA_GC_LOG_OPTS | KAFKA_JMX_OPTS | KAFKA_DEBUG | KAFKA_VERSION | KAFKA_HOME) ;;
		KAFKA_*) printf '%s=%s\n' "$(prop_name "$name")" "${!name}" >>"$CONF" ;;
		esac
	done
	grep -q '^log\.dirs=' "$CONF" || echo "log.dirs=/var/lib/kafka/data" >>"$CONF"
}

# JVM options: apache/kafka's variables, with defaults sized for several
# brokers sharing two cores.
read -r -a heap <<<"${KAFKA_HEAP_OPTS:--Xms512m -Xmx512m}"
read -r -a perf <<<"${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError}"
read -r -a extra <<<"${KAFKA_OPTS:-}"
jvm=("${heap[@]}" "${perf[@]}" -Djava.awt.headless=true
	"-Dlog4j2.configurationFile=$KAFKA_HOME/config/log4j2.properties" "${extra[@]}"
	-cp "$KAFKA_HOME/libs/*")

write_properties
if [ "${1:-}" = print-config ]; then # for tests: show the mapping, start nothing
	cat "$CONF"
	exit 0
fi
# A restart finds its storage formatted: the format's own JVM start would
# only delay the broker's listener, by tens of seconds on loaded cores.
data_dir="$(sed -n 's/^log\.dirs=//p' "$CONF" | cut -d, -f1)"
if [ -n "${CLUSTER_ID:-}" ] && [ ! -e "$data_dir/meta.properties" ]; then
	java "${jvm[@]}" kafka.tools.StorageTool format --ignore-formatted -t "$CLUSTER_ID" -c "$CONF"
fi
echo "kafkachaos entrypoint: starting node ${KAFKA_NODE_ID:-?} with $CONF" >&2
# A run that moves clocks preloads libfaketime into the broker's JVM alone
# (the FAKETIME_* variables, set by the provider, say where its control
# file is); the storage format above runs on real time.
if [ -n "${KAFKACHAOS_FAKETIME:-}" ]; then
	lib=(/usr/lib/*/faketime/libfaketime.so.1)
	[ -e "${lib[0]}" ] || { echo "kafkachaos entrypoint: KAFKACHAOS_FAKETIME set, no libfaketime in the image" >&2; exit 1; }
	export LD_PRELOAD="${lib[0]}"
fi
exec java "${jvm[@]}" kafka.Kafka "$CONF"
