#!/usr/bin/env bash
# Everything the tests need beyond Go, in one place, so .ci/run, `make setup`
# and `make test` cannot drift: the Debian packages (.ci/install-packages.sh),
# the Go modules, the pinned Kafka jars and Java client (make kafka), the
# project's own Docker engine (scripts/dockerd.sh) and the Kafka image built
# in it.
#
#   scripts/setup.sh                 root: install everything; stop the engine
#                                    again if this started it (make setup)
#   scripts/setup.sh install [FILE]  root: install everything and leave the
#                                    engine running (.ci/run); writes FILE when
#                                    it started the engine
#   scripts/setup.sh release FILE    stop the engine if FILE says we started it
#   scripts/setup.sh check           list what this machine lacks; exit 1 if any
#   scripts/setup.sh prepare FILE    make test: as root `install FILE`; without
#                                    root print what is missing and the command
#                                    that installs it, and exit 0 so the tests
#                                    that can run still run
set -euo pipefail
cd "$(dirname "$0")/.."

DOCKER_SOCK="${KAFKACHAOS_DOCKER_SOCK:-/run/kafkachaos-docker.sock}"
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup: %s\n' "$*" >&2; }
section() { printf '\n=== setup: %s (%s)\n' "$*" "$(date -u +%H:%M:%S)" >&2; }

engine_answers() { scripts/dockerd.sh status >/dev/null 2>&1; }

# missing prints one line per thing the real-Kafka suites and the browser
# test need and this machine lacks, as the tests themselves look for it:
# commands on PATH, root, an engine answering on the project's socket.
missing() {
	[ "$(id -u)" = 0 ] || echo "root (network namespaces for cluster/local; faults inside the containers' namespaces for docker)"
	local line
	while IFS= read -r line; do
		explain "$line"
	done < <(bash .ci/install-packages.sh --check || true)
	command -v dockerd >/dev/null 2>&1 || explain "docker.io (dockerd)"
	engine_answers || echo "the project's Docker engine at unix://$DOCKER_SOCK (not running, or not reachable without root)"
}

# explain prints "package (command)", saying so when the command is
# installed but only root's PATH has it (Debian's /usr/sbin).
explain() {
	local cmd="${1##*(}"
	cmd="${cmd%)}"
	if [ -x "/usr/sbin/$cmd" ] || [ -x "/sbin/$cmd" ]; then
		echo "$1: installed in /usr/sbin, not on PATH (add it: export PATH=\$PATH:/usr/sbin)"
	else
		echo "$1"
	fi
}

check() {
	local lacks
	lacks="$(missing)"
	if [ -z "$lacks" ]; then
		log "nothing missing: the real-Kafka suites (local, docker) and the browser test can run"
		return 0
	fi
	log "the real-Kafka suites (local, docker) or the browser test cannot run here; missing:"
	printf '%s\n' "$lacks" | sed 's/^/setup:   - /' >&2
	log "install it all (packages, Kafka jars, engine, image): sudo env \"PATH=\$PATH\" make setup"
	log "or set up and run every suite in one command, as root: sudo env \"PATH=\$PATH\" make test"
	return 1
}

install() {
	local owner="${1:-}"
	if [ "$(id -u)" != 0 ]; then
		log "installing needs root: sudo env \"PATH=\$PATH\" make setup"
		return 1
	fi
	section "system packages"
	bash .ci/install-packages.sh
	section "go modules"
	go mod download
	section "kafka jars"
	go run ./internal/kafkadist/fetchkafka
	KAFKA_VERSION="${SECOND_KAFKA:-3.9.1}" go run ./internal/kafkadist/fetchkafka
	section "java client jars (the java client under test)"
	go run ./client/java/fetchjava
	go run ./client/java/fetchjava -version "${SECOND_KAFKA:-3.9.1}"
	section "docker engine and kafka image"
	if ! engine_answers; then
		scripts/dockerd.sh start
		if [ -n "$owner" ]; then echo started >"$owner"; fi
	fi
	DOCKER_HOST="unix://$DOCKER_SOCK" go run ./cluster/docker/buildimage
}

release() {
	local owner="$1"
	if [ -f "$owner" ] && [ "$(cat "$owner")" = started ]; then
		scripts/dockerd.sh stop
	fi
	rm -f "$owner"
}

# prepare never stops `make test` on a developer's machine: what could not
# be installed shows up as named skips in the summary. Under CI=true a
# failed install is fatal, since every test would fail anyway.
prepare() {
	local owner="$1"
	if [ "$(id -u)" != 0 ]; then
		check || log "running the tests that can run here; the summary at the end names every skip and why"
		return 0
	fi
	if ! install "$owner"; then
		[ "${CI:-}" != true ] || { log "set-up failed under CI=true"; return 1; }
		log "set-up failed (above); running the tests anyway: what is missing will skip and say why"
		check || true
	fi
}

setup_all() {
	local owner status=0
	owner="$(mktemp)"
	install "$owner" || status=$?
	release "$owner"
	[ $status != 0 ] || log "done: make test runs every suite (as root, it starts and stops the engine itself)"
	return $status
}

case "${1:-}" in
"") setup_all ;;
install) install "${2:-}" ;;
release) release "${2:?usage: $0 release FILE}" ;;
check) check ;;
prepare) prepare "${2:?usage: $0 prepare FILE}" ;;
*)
	echo "usage: $0 [install [FILE] | release FILE | check | prepare FILE]" >&2
	exit 2
	;;
esac
