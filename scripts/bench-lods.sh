#!/bin/bash
# Issue 28: levels of detail (`--lods`) for each fixture given: per level the points,
# triangles, GLB bytes, error over every row of every clip (max and mean, of the bounds
# diagonal) and the recorded switch (screen fraction, distance at 1 px / 1080p / 60°),
# against level 0 (the rest mesh); the texture's bytes with and without --lods (the same:
# every level plays from the one texture); the bake's wall time with and without.
# Usage: scripts/bench-lods.sh LODS Fox/Fox.glb ... (paths under fixtures/); VATBAKE=binary (default target/release/vatbake).
cd "$(dirname "$0")/.."
B=${VATBAKE:-target/release/vatbake}
lods=$1
shift
out=${TMPDIR:-/tmp}/vat-lods
now() { date +%s.%N; }
echo "| model | level | points | triangles | GLB bytes | max / mean error (of the diagonal) | screen fraction | distance | texture bytes | bake (s) |"
echo "|---|---|---:|---:|---:|---|---:|---:|---:|---:|"
for m in "$@"; do
  rm -rf "$out"
  t0=$(now); $B bake "fixtures/$m" -o "$out/plain" --name g --points all -q >/dev/null || { echo "FAIL $m"; continue; }
  t1=$(now); $B bake "fixtures/$m" -o "$out/lods" --name g --points all -q --lods "$lods" >/dev/null || { echo "FAIL $m --lods $lods"; continue; }
  t2=$(now)
  cmp -s "$out/plain/g.vat.ktx2" "$out/lods/g.vat.ktx2" || echo "TEXTURE DIFFERS $m"
  cmp -s "$out/plain/g.rest.glb" "$out/lods/g.rest.glb" || echo "REST MESH DIFFERS $m"
  python3 - "$out/lods" "$m" "$(python3 -c "print(f'{$t1-$t0:.2f}')")" "$(python3 -c "print(f'{$t2-$t1:.2f}')")" <<'PY'
import json, os, sys
d, m, plain, with_lods = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
j = json.load(open(os.path.join(d, 'g.vat.json')))
rest = os.path.getsize(os.path.join(d, j['mesh']['file']))
tris0 = j['mesh']['triangles']
print(f"| {m} | 0 | {j['points']} | {tris0} | {rest:,} | – | – | – | {j['texture']['bytes']:,} | {plain} |")
for k, l in enumerate(j.get('lods', []), 1):
    s = l['switch']
    print(f"| | {k} | {l['points']} | {l['triangles']} | {os.path.getsize(os.path.join(d, l['file'])):,} | {100*l['max_error_fraction']:.2f} % / {100*l['mean_error_fraction']:.3f} % | {100*s['screen_fraction']:.1f} % | {s['distance']:,.1f} | same | {with_lods if k == 1 else ''} |")
PY
done
rm -rf "$out"
