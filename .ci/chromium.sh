#!/bin/sh
# Installs Debian's chromium for report/'s browser test (TestBrowser*).
set -eu
if command -v chromium >/dev/null 2>&1; then exit 0; fi
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
