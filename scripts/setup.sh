#!/usr/bin/env bash
# Installs what ShardLab needs on a fresh Debian machine, skipping whatever is already
# present at the right version. Usage: scripts/setup.sh [serve|test]
#   serve: the wasm32 target, trunk, wasm-bindgen-cli and the npm tools (wasm-opt).
#   test:  all of the above plus Chromium and chromedriver for browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-serve}"
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

say() { printf '==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# The installs below are independent of each other. Each tool's build has a long tail
# that keeps one core (linking, its last crates), and the Debian and npm downloads mostly
# wait on the network, so they run side by side: each writes to its own log, shown if it
# fails. On a fresh two-core machine this saves minutes of the test command's time.
logs=$(mktemp -d)
pids=()
names=()
in_background() {
  local name="$1"
  shift
  "$@" >"$logs/$name.log" 2>&1 &
  pids+=($!)
  names+=("$name")
}

# Rust's wasm32 target (quick; the tools' builds below do not need it).
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "wasm32-unknown-unknown target: present"
else
  say "installing the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# Every crate Cargo.lock names, for every target and feature: the release build runs
# cargo with --offline, and the features only it turns on (`split`) need crates no
# earlier step downloads. Quick when they are here already.
say "fetching the crates Cargo.lock names"
cargo fetch --locked

# Trunk, pinned: 0.22 needs a newer rustc than this toolchain.
TRUNK_VERSION=0.21.14
if trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then
  say "trunk $TRUNK_VERSION: present"
else
  say "installing trunk $TRUNK_VERSION (takes several minutes)"
  # Trunk hands the work to cargo, wasm-bindgen, wasm-split and wasm-opt, so its own
  # speed does not matter here: it is built unoptimised and without debug information,
  # which on a fresh two-core machine took 362 s against 609 s for its release profile
  # (even with LTO off and 16 codegen units).
  in_background trunk env CARGO_PROFILE_DEV_DEBUG=0 \
    cargo install trunk --version "$TRUNK_VERSION" --locked --debug
fi

# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly. It is
# installed without --locked because the registry lacks one of its locked dependencies.
# Only the two programs the build and the tests run are built.
WBG_VERSION=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$WBG_VERSION" ]; then
  echo "could not read the wasm-bindgen version from Cargo.lock" >&2
  exit 1
fi
if wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WBG_VERSION" &&
   command -v wasm-bindgen-test-runner >/dev/null; then
  say "wasm-bindgen-cli $WBG_VERSION: present"
else
  say "installing wasm-bindgen-cli $WBG_VERSION"
  in_background wasm-bindgen-cli cargo install wasm-bindgen-cli --version "$WBG_VERSION" \
    --bin wasm-bindgen --bin wasm-bindgen-test-runner
fi

# wasm-split-cli splits the engine's module in two before wasm-bindgen runs
# (scripts/build-engine.mjs). Its version must read the markers the `wasm_split_helpers`
# crate in Cargo.lock writes.
WASM_SPLIT_VERSION=0.2.4
# (The tool has no --version: cargo's list of installed crates says which it is.)
if command -v wasm-split-cli >/dev/null &&
   cargo install --list | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
  say "wasm-split-cli $WASM_SPLIT_VERSION: present"
else
  say "installing wasm-split-cli $WASM_SPLIT_VERSION"
  in_background wasm-split-cli cargo install wasm_split_cli_support --version "$WASM_SPLIT_VERSION" \
    --locked --features build-binary
fi

# npm tools: binaryen's wasm-opt (Debian's is too old for today's wasm),
# playwright-core, which drives the system Chromium rather than downloading one, and
# typescript, whose tsc checks the JavaScript module's declarations.
npm_packages_present() {
  node -e '
    const want = require("./package.json").devDependencies;
    for (const [name, version] of Object.entries(want)) {
      let have = "";
      try { have = require(`./node_modules/${name}/package.json`).version; } catch {}
      if (have !== version) process.exit(1);
    }' 2>/dev/null
}
if npm_packages_present; then
  say "npm packages: present"
else
  say "installing npm packages"
  in_background npm npm ci --no-audit --no-fund
fi

# Debian's packages, in one apt run:
# - zopfli precompresses the release build (scripts/precompress.mjs); zlib stands in
#   without it;
# - for the tests, Chromium and chromedriver, and a Simplified Chinese system font, so that
#   the Chinese pages' layout tests measure real glyphs (the page uses the system's CJK
#   fonts, as a reader's computer has them).
debs=()
if command -v zopfli >/dev/null; then
  say "zopfli: present"
else
  debs+=(zopfli)
fi
if [ "$mode" = test ]; then
  if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    say "chromium and chromedriver: present"
  else
    debs+=(chromium chromium-driver)
  fi
  if fc-list :lang=zh 2>/dev/null | grep -q .; then
    say "a Chinese font: present"
  else
    debs+=(fonts-wqy-microhei)
  fi
fi
apt_install() {
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@"
}
if [ "${#debs[@]}" -gt 0 ]; then
  say "installing from Debian: ${debs[*]}"
  in_background debian apt_install "${debs[@]}"
fi

failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    say "${names[$i]}: installed"
  else
    failed=1
    say "${names[$i]}: the install failed; its log follows"
    cat "$logs/${names[$i]}.log"
  fi
done
rm -rf "$logs"
[ "$failed" -eq 0 ] || exit 1
say "setup complete"
