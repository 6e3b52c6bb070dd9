#!/usr/bin/env bash
# Installs s3s-fs (an S3 server over a directory that checks SigV4 signatures) from
# crates.io into ROOT/bin, for the remote-store tests. Idempotent: nothing to do when the
# pinned version is there. Pinned with --locked to the crate's own lock file.
# Takes about 3-4 minutes of CPU on first run (two cores).
set -euo pipefail
root="$1"
version=0.14.1
stamp="$root/.installed-$version"
if [ -f "$stamp" ] && [ -x "$root/bin/s3s-fs" ]; then
  exit 0
fi
start=$(date +%s)
cargo install s3s-fs --version "$version" --locked --features binary --root "$root" -j2 --quiet
touch "$stamp"
echo "s3s-fs $version installed in $(( $(date +%s) - start )) s"
