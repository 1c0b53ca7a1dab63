#!/usr/bin/env bash
# Sets up what is missing, then builds and serves the playground on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
scripts/setup.sh serve
port="${PORT:-8080}"
echo "==> ShardLab will be served at http://127.0.0.1:$port/"
exec trunk serve --offline --port "$port"
