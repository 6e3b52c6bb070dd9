#!/usr/bin/env bash
# Installs Azurite (Microsoft's Azure Storage emulator, a Node.js program) from npm into
# DIR/node_modules, for the Azure store's tests. Idempotent: nothing to do when the
# pinned version is there. Needs node and npm (scripts/setup.sh installs them).
set -euo pipefail
root="$1"
version=3.37.0
stamp="$root/.installed-$version"
if [ -f "$stamp" ] && [ -x "$root/node_modules/.bin/azurite-blob" ]; then
  exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "install_azurite: npm is missing (run scripts/setup.sh)" >&2; exit 1; }
start=$(date +%s)
mkdir -p "$root"
npm install --prefix "$root" --no-audit --no-fund --loglevel=error "azurite@$version"
touch "$stamp"
echo "azurite $version installed in $(( $(date +%s) - start )) s"
