#!/usr/bin/env bash
# `make package`: sets up what is missing, makes the release build, then the npm package
# (scripts/package.mjs): target/package/shardlab-<version>.tgz.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
scripts/setup.sh serve
trunk build --release --offline
node scripts/package.mjs
