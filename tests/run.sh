#!/usr/bin/env bash
# The project's test command (README): the Rust tests, then the independent checks in
# node (three.js evaluation, KTX2 readers, the Khronos glTF validator) against the
# binary the Rust tests just built. Sets up what it needs on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# The zstd command-line tool: an independent inflater for the KTX2 level (vat-ktx2's
# tests require it when VAT_REQUIRE_ZSTD is set, as here).
if ! command -v zstd >/dev/null; then
  apt-get update -qq && apt-get install -y -qq zstd >/dev/null
fi
VAT_REQUIRE_ZSTD=1 cargo test --workspace --locked

cargo build -p vatbake --locked --quiet
export VATBAKE_BIN="$PWD/target/debug/vatbake"
npm ci --prefix tests/js --no-audit --no-fund --loglevel=error
npm test --prefix tests/js

# three.js playback in headless Chromium (docs/examples/three, tests/browser): about a minute.
if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_BIN:-}" ]; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
npm test --prefix tests/browser
