#!/bin/bash
# Issue 16: texture bytes of each fixture under --delta row and --delta second, at the
# default Zstandard level and with --smallest (docs/PERFORMANCE.md, "Delta mode").
# Usage: scripts/bench-delta.sh Fox/Fox.glb ... (paths under fixtures/); VATBAKE=binary (default target/release/vatbake).
cd "$(dirname "$0")/.."
B=${VATBAKE:-target/release/vatbake}
for m in "$@"; do
  for v in "plain:" "row:--delta row" "second:--delta second" "row-smallest:--delta row --smallest" "second-smallest:--delta second --smallest"; do
    name=${v%%:*}; args=${v#*:}
    out=${TMPDIR:-/tmp}/vat-delta/$name
    $B bake fixtures/$m -o $out $args -q >/dev/null 2>&1 || { echo "FAIL $m $name"; continue; }
    echo "$m $name $(python3 -c "import json,glob;print(json.load(open(glob.glob('$out/*.vat.json')[0]))['texture']['bytes'])")"
    rm -rf $out
  done
done
