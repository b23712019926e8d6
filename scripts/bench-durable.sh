#!/usr/bin/env bash
# Synced (the default) against --no-durable: median [fastest–slowest] wall ms of N
# interleaved rebakes into a folder holding an earlier bake (docs/PERFORMANCE.md,
# "Durable writes"). Usage: scripts/bench-durable.sh [N]; needs target/release/vatbake
# and target/release/gen-big-model (cargo build --release -p vatbake -p vat-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-9}
bin=${VATBAKE_BIN:-target/release/vatbake}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${GEN_BIG_MODEL:-target/release/gen-big-model}" --preset spec -o "$work/spec.glb" >/dev/null
ms() { local s; s=$(date +%s%N); "$@" >/dev/null; echo $((($(date +%s%N) - s) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)] " [" a[1] "–" a[NR] "]"}'; }
measure() {
  local label=$1 out="$work/out-$1"
  shift
  "$bin" bake "$@" -o "$out" -q
  for _ in $(seq "$n"); do
    ms "$bin" bake "$@" -o "$out" -q >>"$work/$label.synced"
    ms "$bin" bake "$@" -o "$out" -q --no-durable >>"$work/$label.not"
  done
  echo "$label: synced $(median <"$work/$label.synced") ms, --no-durable $(median <"$work/$label.not") ms, $(du -b "$out" | cut -f1) bytes"
}
uptime
measure fox fixtures/Fox/Fox.glb
measure spec-default "$work/spec.glb"
measure spec-all "$work/spec.glb" --points all
