#!/bin/bash
# The --target godot EXR of Fox and CesiumMan (default settings): its bytes and the median
# time of `vat_export::exr_rgba32f` over 21 rewrites on one core of the same texels (the texels read back
# from the baked EXR with the `exr` crate; "same" when the rewrite is the baked file byte for byte).
# Usage: scripts/bench-exr.sh; needs VATBAKE_BIN (default target/release/vatbake).
# Prints one line per model: file width height file_bytes rewrite_bytes same|differ median_ms
set -e
cd "$(dirname "$0")/.."
B=${VATBAKE_BIN:-target/release/vatbake}
cargo build --release -q -p vat-export --example exr_write
out=${TMPDIR:-/tmp}/vat-bench-exr
for m in fixtures/Fox/Fox.glb fixtures/CesiumMan/glTF-Binary/CesiumMan.glb; do
  n=$(basename "$m" .glb)
  rm -rf "$out/$n"
  "$B" bake "$m" -o "$out/$n" --target godot -q
  taskset -c 0 "${CARGO_TARGET_DIR:-target}/release/examples/exr_write" "$out/$n/$n-godot.exr" 21
done
rm -rf "$out"
