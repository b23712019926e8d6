#!/bin/bash
# Issue 16: texture bytes under a coarser position grid (--bits, --tolerance) for each
# fixture, against the default full-precision bake (docs/PERFORMANCE.md, "A coarser grid").
# Tolerances are fractions of each model's bounds diagonal: 1e-4 (the cross-checks' own
# position tolerance), 5e-4 and 1e-3.
# Usage: scripts/bench-grid.sh Fox/Fox.glb ... (paths under fixtures/); VATBAKE=binary (default target/release/vatbake).
cd "$(dirname "$0")/.."
B=${VATBAKE:-target/release/vatbake}
out=${TMPDIR:-/tmp}/vat-grid
field() { python3 -c "import json,sys;d=json.load(open('$out/g.vat.json'));p=d['positions'];print(d['texture']['bytes'], 2*sum(h*h for h in p['half_extent'])**0.5, 'x'.join(map(str,p['grid'])) if p.get('grid') else '-', p.get('max_error') or p['precision'])"; }
for m in "$@"; do
  rm -rf $out; $B bake fixtures/$m -o $out --name g -q >/dev/null 2>&1 || { echo "FAIL $m"; continue; }
  read -r base diag _ _ <<<"$(field)"
  echo "$m default $base 1.000 - -"
  for v in "--bits 14" "--bits 12" "--bits 10" "tol:1e-4" "tol:5e-4" "tol:1e-3"; do
    case $v in tol:*) f=${v#tol:}; args="--tolerance $(python3 -c "print($f*$diag)")"; label="tolerance ${f}×diag" ;; *) args=$v; label=${v#--} ;; esac
    rm -rf $out; $B bake fixtures/$m -o $out --name g -q $args >/dev/null 2>&1 || { echo "FAIL $m $v"; continue; }
    read -r bytes _ grid err <<<"$(field)"
    echo "$m $label $bytes $(python3 -c "print(f'{$bytes/$base:.3f}')") $grid $(python3 -c "print(f'{$err/$diag:.2e}')")"
  done
done
rm -rf $out
