#!/bin/bash
# Issue 29: the default texture's bytes against honest baselines on the same texels, and
# the byte layouts a player could undo on load (docs/PERFORMANCE.md, "Texture size:
# honest baselines" and "Byte layouts, measured"). For each model: the default bake's
# KTX2 bytes and its references' bytes in the description (and its median wall time
# over RUNS runs), vatbake's own 16-bit PNG of the
# same texels (`--texture-format png --delta none`), and scripts/texture-layouts.py on a
# `--delta none` bake (a strong PNG16 encoder, `zstd -19 --long`, `xz -9e`, the layouts).
# One JSON object per model on stdout; `scripts/texture-layouts.py --table FILE` prints
# the tables from them.
#
# Usage: scripts/bench-texture-size.sh [--layouts all|default|none] [--levels 5] [--slow 19] MODEL...
#   MODEL: a path under fixtures/ (Fox/Fox.glb) or any other path (a generated model,
#   target/bench/models/fox-spec.glb, see fixtures/generated/README.md).
# Env: VATBAKE=binary (default target/release/vatbake), RUNS=5, TMPDIR.
# Needs: python3 with numpy and zstandard, the zstd and xz CLIs.
cd "$(dirname "$0")/.."
B=${VATBAKE:-target/release/vatbake}
RUNS=${RUNS:-5}
LAYOUTS=all
LEVELS=5
SLOW=19
while [ $# -gt 0 ]; do
  case $1 in
    --layouts) LAYOUTS=$2; shift 2 ;;
    --levels) LEVELS=$2; shift 2 ;;
    --slow) SLOW=$2; shift 2 ;;
    *) break ;;
  esac
done
med() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
work=${TMPDIR:-/tmp}/vat-texture-size.$$
for m in "$@"; do
  src=$m; [ -e "$src" ] || src=fixtures/$m
  rm -rf "$work"; mkdir -p "$work"
  ts=()
  for i in $(seq "$RUNS"); do
    s=$(date +%s%N); $B bake "$src" -o "$work/default" -q >/dev/null 2>&1 || { echo "FAIL $m default" >&2; continue 2; }; e=$(date +%s%N)
    ts+=($(( (e-s)/1000000 )))
  done
  ms=$(printf '%s\n' "${ts[@]}" | med)
  $B bake "$src" -o "$work/plain" --delta none -q >/dev/null 2>&1 || { echo "FAIL $m plain" >&2; continue; }
  $B bake "$src" -o "$work/png" --delta none --texture-format png -q >/dev/null 2>&1 || { echo "FAIL $m png" >&2; continue; }
  default=$(stat -c %s "$work"/default/*.vat.ktx2)
  # The "planes-ref" table in the description (none: 0), counted with the texture.
  references=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['texture'].get('delta') or {}; print(len(d.get('references', '')))" "$work"/default/*.vat.json)
  ours=$(stat -c %s "$work"/png/*.vat.png)
  python3 scripts/texture-layouts.py "$work"/plain/*.vat.json --layouts "$LAYOUTS" --levels "$LEVELS" --slow "$SLOW" |
    python3 -c "import json,sys; d=json.load(sys.stdin); d.update(model='$m', default=$default, references=$references, default_ms=$ms, vatbake_png=$ours); print(json.dumps(d))"
  rm -rf "$work"
done
