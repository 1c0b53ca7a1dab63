#!/usr/bin/env bash
# Sets up everything, then runs every check CI runs, in order, and prints a summary.
# Exits non-zero if any step fails. Later steps still run so one report shows all failures.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

scripts/setup.sh test || { echo "setup failed"; exit 1; }

names=()
results=()
run() {
  local name="$1"
  shift
  printf '\n==> %s\n$ %s\n' "$name" "$*"
  local start=$SECONDS
  if "$@"; then results+=("pass"); else results+=("FAIL"); fi
  names+=("$name ($((SECONDS - start))s)")
}

run "cargo fmt --check" cargo fmt --all -- --check
run "clippy (host)" cargo clippy --workspace --all-targets -- -D warnings
run "clippy (wasm32)" cargo clippy --workspace --all-targets --target wasm32-unknown-unknown -- -D warnings
# The browser's modules in parts: the code behind the `split` features (and the core's `lazy-`
# features they turn on), which no other build compiles.
run "clippy (wasm32, in parts)" cargo clippy -p shardlab-engine -p shardlab-web --all-targets --target wasm32-unknown-unknown --features split -- -D warnings
run "cargo doc" env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
run "core tests (native)" cargo test -p shardlab
run "protocol and engine tests (native)" cargo test -p shardlab-protocol -p shardlab-engine
run "core tests (wasm32, Node)" cargo test -p shardlab --target wasm32-unknown-unknown --lib --test it
run "web tests (wasm32, headless Chromium)" cargo test -p shardlab-web --target wasm32-unknown-unknown
run "module declarations (tsc)" tsc -p tests/module
run "release build (trunk + wasm-opt)" trunk build --release --offline
run "JavaScript module (Node)" node --test tests/module/
run "end-to-end (Playwright, headless Chromium)" node --test tests/e2e/

printf '\n==> Summary\n'
passed=0
failed=0
for i in "${!names[@]}"; do
  printf '  %-4s %s\n' "${results[$i]}" "${names[$i]}"
  if [ "${results[$i]}" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "steps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
