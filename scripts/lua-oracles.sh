#!/usr/bin/env bash
# Installs the Lua interpreters the Lua example is checked and measured
# against (Debian's lua5.4 and luajit), unless they are present.
set -euo pipefail
if command -v lua5.4 >/dev/null && command -v luajit >/dev/null; then
    exit 0
fi
DEBIAN_FRONTEND=noninteractive apt-get -q update >&2
DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=300 \
    --no-install-recommends install lua5.4 luajit >&2
command -v lua5.4 >/dev/null && command -v luajit >/dev/null
