#!/usr/bin/env bash
# three.js playback benchmark (docs/PERFORMANCE.md, "three.js playback: VAT vs
# SkinnedMesh"): the Fox as one @vatbake/three VatMesh of N units vs N SkinnedMesh clones
# with their own AnimationMixer, median frame time in headless Chromium (SwiftShader:
# software GL) at N = 100, 1,000, 10,000. Several minutes at N = 10,000.
#   bash scripts/bench-three.sh [FRAMES] [N,N,…]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p vatbake
export VATBAKE_BIN="${VATBAKE_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/vatbake}"
npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
node tests/browser/bench.mjs "${1:-15}" "${2:-100,1000,10000}"
