#!/usr/bin/env bash
# The default bake against Blender's import + sampling of the same model, on the same
# run: N interleaved runs of each, median [fastest–slowest] wall and CPU seconds, and
# the ratios (docs/PERFORMANCE.md, "Against Blender"). Usage: scripts/bench-blender.sh
# [N] [MODEL]; MODEL defaults to the generated 30,000-point model. Needs blender (Debian:
# apt-get install blender python3-numpy), target/release/vatbake and
# target/release/gen-big-model (cargo build --release -p vatbake -p vat-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
bin=${VATBAKE_BIN:-target/release/vatbake}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model=${2:-}
if [[ -z $model ]]; then
  model="$work/spec.glb"
  "${GEN_BIG_MODEL:-target/release/gen-big-model}" --preset spec -o "$model" >/dev/null
fi
# one line per run: wall user sys (seconds)
timed() { /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }; cat "$work/t"; }
uptime
blender --version | head -1
for _ in $(seq "$n"); do
  timed blender -b --factory-startup --python scripts/blender-sample.py -- "$model" >>"$work/blender"
  grep '^BLENDER' "$work/log" | tail -1 >&2
  timed "$bin" bake "$model" -o "$work/out" -q >>"$work/vatbake"
done
python3 - "$work/blender" "$work/vatbake" <<'PY'
import statistics, sys
def load(p):
    rows = [list(map(float, l.split())) for l in open(p)]
    return [r[0] for r in rows], [r[1] + r[2] for r in rows]
bw, bc = load(sys.argv[1])
vw, vc = load(sys.argv[2])
m = statistics.median
fmt = lambda xs: f"{m(xs):.3f} s [{min(xs):.3f}–{max(xs):.3f}]"
print(f"blender: wall {fmt(bw)}, CPU {fmt(bc)}")
print(f"vatbake: wall {fmt(vw)}, CPU {fmt(vc)}")
print(f"ratio (blender / vatbake): wall {m(bw) / m(vw):.1f}×, CPU {m(bc) / m(vc):.1f}×")
PY
