#!/usr/bin/env bash
# Installs the Debian packages the tests need, only those missing.
set -euo pipefail
need=()
for pkg in chromium; do
	dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
