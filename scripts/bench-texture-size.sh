#!/bin/bash
# Issue 16: texture bytes and median wall time (5 runs) of each fixture baked four ways:
# source order @3 (the old default), spatial @3 (the default), --smallest, --smallest in source order.
# Usage: scripts/bench-texture-size.sh Fox/Fox.glb ... (paths under fixtures/); needs target/release/vatbake.
cd "$(dirname "$0")/.."
B=target/release/vatbake
med() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
for m in "$@"; do
  for v in "source:--column-order source" "spatial:" "smallest:--smallest" "smallest-src:--smallest --column-order source"; do
    name=${v%%:*}; args=${v#*:}
    out=${TMPDIR:-/tmp}/vat-texture-size/$name
    ts=()
    for i in 1 2 3 4 5; do
      s=$(date +%s%N); $B bake fixtures/$m -o $out $args >/dev/null 2>&1 || { echo "FAIL $m $name"; break; }; e=$(date +%s%N)
      ts+=($(( (e-s)/1000000 )))
    done
    bytes=$(python3 -c "import json,glob;d=json.load(open(glob.glob('$out/*.vat.json')[0]));print(d['texture']['bytes'],d['texture']['width']*d['texture']['height']*8)")
    echo "$m $name $bytes $(printf '%s\n' "${ts[@]}" | med)"
    rm -rf $out
  done
done
