#!/usr/bin/env bash
# The Debian packages the tests need, and the command each one provides:
# chromium for the report's browser test; maven and a Java 17 runtime to
# fetch and run real Kafka brokers, and javac to build the java client's
# worker; iproute2, nftables and iptables for the
# local provider's network namespaces and partitions; debootstrap to build
# the Kafka image for the docker provider (no registry is reachable);
# openssh-server for the external provider's test, whose hosts are the
# local provider's namespaces, each running an sshd.
#
#   .ci/install-packages.sh           install the missing ones (root)
#   .ci/install-packages.sh --check   print "package (command)" for each
#                                     command not on PATH; exit 1 if any
#
# One table for both, so what scripts/setup.sh reports missing is exactly
# what it installs. A package counts as present when one of its commands
# (separated by |, as the tests look for them) is on PATH: a CI machine
# with Google Chrome needs no chromium package.
set -euo pipefail
packages=(
	'chromium:chromium|chromium-browser|google-chrome'
	maven:mvn
	openjdk-17-jre-headless:java
	openjdk-17-jdk-headless:javac
	iproute2:ip
	nftables:nft
	iptables:iptables
	debootstrap:debootstrap
	fuse3:fusermount3
	faketime:faketime
	openssh-server:sshd
)

# on_path reports whether one of the |-separated commands is on PATH.
on_path() {
	local cmd
	IFS='|' read -ra cmds <<<"$1"
	for cmd in "${cmds[@]}"; do
		command -v "$cmd" >/dev/null 2>&1 && return 0
	done
	return 1
}

check() {
	local entry cmds missing=0
	for entry in "${packages[@]}"; do
		cmds="${entry#*:}"
		if ! on_path "$cmds"; then
			echo "${entry%%:*} (${cmds%%|*})"
			missing=1
		fi
	done
	return $missing
}

# installed reports whether dpkg has the package installed: `dpkg -s` also
# succeeds for a removed package whose configuration files remain.
installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

install() {
	local entry need=()
	for entry in "${packages[@]}"; do
		on_path "${entry#*:}" || installed "${entry%%:*}" || need+=("${entry%%:*}")
	done
	if [ "${#need[@]}" -gt 0 ]; then
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${need[@]}"
	fi
}

case "${1:-}" in
--check) check ;;
"") install ;;
*)
	echo "usage: $0 [--check]" >&2
	exit 2
	;;
esac
