#!/bin/bash
# Issue 19: each model baked in vertex mode (--points all, the defaults otherwise) and in bone mode
# (--mode bones): texture texels, raw and file bytes, rest-mesh bytes and the median wall time of 5 bakes.
# Usage: scripts/bench-bones.sh MODEL...  (paths to .glb/.gltf files); needs target/release/vatbake.
# Prints one line per model and mode: model mode width height texels raw_bytes texture_bytes mesh_bytes median_ms
cd "$(dirname "$0")/.."
B=${VATBAKE_BIN:-target/release/vatbake}
med() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
for m in "$@"; do
  for mode in vertices bones; do
    out=${TMPDIR:-/tmp}/vat-bench-bones/$mode
    ts=()
    for i in 1 2 3 4 5; do
      rm -rf "$out"
      s=$(date +%s%N); "$B" bake "$m" -o "$out" --points all --mode $mode -q 2>/dev/null || { echo "$m $mode refused (exit $?)"; ts=(); break; }; e=$(date +%s%N)
      ts+=($(( (e-s)/1000000 )))
    done
    [ ${#ts[@]} -eq 0 ] && continue
    python3 - "$out" "$m" "$mode" "$(printf '%s\n' "${ts[@]}" | med)" <<'PY'
import glob, json, os, sys
out, model, mode, ms = sys.argv[1:]
d = json.load(open(glob.glob(out + '/*.vat.json')[0]))
t = d['texture']
per_texel = 16 if mode == 'bones' else 8
print(model, mode, t['width'], t['height'], t['width'] * t['height'], t['width'] * t['height'] * per_texel,
      t['bytes'], os.path.getsize(os.path.join(out, d['mesh']['file'])), ms)
PY
    rm -rf "$out"
  done
done
