#!/usr/bin/env bash
# Crowd benchmark (docs/PERFORMANCE.md, "A crowd with levels of detail"): 10,000 units of
# a `--lods` bake over a field under an RTS camera, @vatbake/three's VatMesh (LODs off)
# against its VatCrowd (LODs on) and the VatCrowd with the unit's impostor as its last
# level (`vatbake impostor`, flags from IMPOSTOR_ARGS), in one run in headless Chromium
# (SwiftShader: software GL): frame time, vertices and triangles per frame, texture and
# buffer bytes.
#   bash scripts/bench-crowd.sh [FRAMES] [N] [FIXTURE] [LODS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p vatbake
export VATBAKE_BIN="${VATBAKE_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/vatbake}"
npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
node tests/browser/crowd-bench.mjs "${1:-9}" "${2:-10000}" "${3:-Fox/Fox.glb}" "${4:-0.5,0.25}"
