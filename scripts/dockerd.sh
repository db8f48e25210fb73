#!/usr/bin/env bash
# A Docker engine for kafkachaos tests, separate from any system engine:
# its own socket, data root, exec root and pid file, so starting and stopping
# it never disturbs another dockerd on the machine.
#
#   scripts/dockerd.sh start    install Debian's docker.io if missing, start, wait
#   scripts/dockerd.sh stop     stop the engine (containers die with it)
#   scripts/dockerd.sh status   exit 0 when the engine answers
#   scripts/dockerd.sh env      print `export DOCKER_HOST=...` for eval
#
# Firewall choice: the engine runs with --iptables=false --ip6tables=false.
# With iptables on, dockerd sets the host FORWARD policy to DROP (and with
# bridge-nf-call-iptables=1 that silently drops bridged traffic of every other
# bridge, e.g. cluster/local's); it also adds NAT rules we do not need: no
# container here talks to the outside. Without them containers on one
# network still talk to each other, the host reaches container addresses
# directly on the network's bridge, and the host firewall is left exactly as
# it was. --bridge=none: runs use networks of their own, never docker0, so
# none is made and none stays behind after stop. cluster/docker adds its own tagged FORWARD accept rule per network
# in case something else made the policy DROP.
set -euo pipefail

SOCK="${KAFKACHAOS_DOCKER_SOCK:-/run/kafkachaos-docker.sock}"
ROOT="${KAFKACHAOS_DOCKER_ROOT:-/var/lib/kafkachaos-docker}"
EXEC_ROOT="${KAFKACHAOS_DOCKER_EXEC_ROOT:-/run/kafkachaos-docker}"
PIDFILE="$EXEC_ROOT.pid"
LOG="${KAFKACHAOS_DOCKER_LOG:-/var/log/kafkachaos-dockerd.log}"
HOST="unix://$SOCK"

log() { printf 'dockerd.sh: %s\n' "$*" >&2; }

answers() { docker -H "$HOST" version --format '{{.Server.Version}}' >/dev/null 2>&1; }

install() {
	if command -v dockerd >/dev/null && command -v docker >/dev/null && command -v containerd >/dev/null; then
		return
	fi
	[ "$(id -u)" = 0 ] || { log "docker.io is not installed and installing it needs root"; exit 1; }
	log "installing Debian's docker.io"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# policy-rc.d keeps the package from starting the system engine on the
	# default socket: only the engine below, with our settings, should run.
	local had_policy=0
	[ -e /usr/sbin/policy-rc.d ] && had_policy=1
	if [ $had_policy = 0 ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
	fi
	apt-get install -y -qq --no-install-recommends docker.io iptables >/dev/null
	[ $had_policy = 1 ] || rm -f /usr/sbin/policy-rc.d
}

start() {
	if answers; then
		log "engine already answering at $HOST"
		return
	fi
	install
	[ "$(id -u)" = 0 ] || { log "starting dockerd needs root"; exit 1; }
	mkdir -p "$ROOT" "$EXEC_ROOT" "$(dirname "$LOG")"
	rm -f "$SOCK"
	log "starting dockerd: socket $SOCK, data root $ROOT, iptables off, log $LOG"
	setsid dockerd \
		--host "$HOST" \
		--data-root "$ROOT" \
		--exec-root "$EXEC_ROOT" \
		--pidfile "$PIDFILE" \
		--iptables=false --ip6tables=false --ip-masq=false \
		--bridge=none \
		--userland-proxy=true \
		>>"$LOG" 2>&1 </dev/null &
	local waited=0
	until answers; do
		if ! kill -0 $! 2>/dev/null; then
			log "dockerd exited; last log lines:"
			tail -n 30 "$LOG" >&2
			exit 1
		fi
		if [ $waited -ge 60 ]; then
			log "dockerd not answering after 60s; last log lines:"
			tail -n 30 "$LOG" >&2
			exit 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
	log "engine $(docker -H "$HOST" version --format '{{.Server.Version}}') ready after ${waited}s; use: export DOCKER_HOST=$HOST"
}

stop() {
	if [ ! -s "$PIDFILE" ]; then
		log "no pid file $PIDFILE: engine not running"
		return
	fi
	local pid
	pid="$(cat "$PIDFILE")"
	if ! kill -0 "$pid" 2>/dev/null; then
		log "engine (pid $pid) already gone"
		rm -f "$PIDFILE"
		return
	fi
	kill -TERM "$pid"
	for _ in $(seq 1 30); do
		kill -0 "$pid" 2>/dev/null || { log "engine stopped"; return; }
		sleep 1
	done
	log "engine (pid $pid) still alive after 30s, killing it"
	kill -KILL "$pid" 2>/dev/null || true
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) if answers; then log "answering at $HOST"; else log "not answering at $HOST"; exit 1; fi ;;
env) echo "export DOCKER_HOST=$HOST" ;;
*)
	echo "usage: $0 start|stop|status|env" >&2
	exit 2
	;;
esac
