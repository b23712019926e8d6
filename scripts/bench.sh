#!/usr/bin/env bash
# Benchmarks vatbake and prints the tables of docs/PERFORMANCE.md as markdown.
#
#   scripts/bench.sh                 # everything: ~15–30 min on a 2-core machine
#   scripts/bench.sh --quick         # 3 runs per cell, no level sweep: a smoke test
#   scripts/bench.sh --validate      # also run the Khronos glTF-Validator on the generated models (needs npm)
#   scripts/bench.sh --profile       # also a perf profile of the reference bake
#   scripts/bench.sh --wait-quiet    # first wait (up to 10 min) for the 1-minute load average to drop below 0.5
#   scripts/bench.sh -- --runs 9     # anything after -- goes to the bench binary (see `target/release/bench --help`)
#
# Steps: build vatbake and vat-bench in release; generate the two large models
# (gen-big-model: the Fox subdivided to 28,374 points / 7 clips / 268 rows, and to
# 30,000 points / 8 clips / 320 rows) into target/bench/models; time every fixture
# that bakes and both models (1 core: taskset -c 0 + RAYON_NUM_THREADS=1; all
# cores), with hyperfine when it is installed and a timing loop otherwise. Results:
# target/bench/results.md (the tables) and target/bench/results.json (every run).
# Optional tools: hyperfine, zstd (CLI comparison column), /usr/bin/time (peak
# RSS), perf (--profile), npm (--validate).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0 validate=0 profile=0 wait_quiet=0
bench_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --validate) validate=1 ;;
    --profile) profile=1 ;;
    --wait-quiet) wait_quiet=1 ;;
    --) shift; bench_args+=("$@"); break ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

target="${CARGO_TARGET_DIR:-target}"
work="$target/bench"
models="$work/models"
mkdir -p "$models"

echo "== building (release)" >&2
cargo build --release -p vatbake -p vat-bench >&2

echo "== generating the large models into $models" >&2
"$target/release/gen-big-model" --preset reference -o "$models/fox-reference.glb" >&2
"$target/release/gen-big-model" --preset spec -o "$models/fox-spec.glb" >&2

if [[ $validate == 1 ]]; then
  if command -v npm >/dev/null && command -v node >/dev/null; then
    echo "== glTF-Validator" >&2
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund gltf-validator >/dev/null)
    NODE_PATH="$tmp/node_modules" node crates/vat-bench/validate/validate.cjs "$models/fox-reference.glb" "$models/fox-spec.glb" >&2
  else
    echo "bench.sh: --validate needs node and npm; skipped" >&2
  fi
fi

if [[ $wait_quiet == 1 ]]; then
  for _ in $(seq 120); do
    load="$(cut -d' ' -f1 /proc/loadavg)"
    awk -v l="$load" 'BEGIN { exit !(l < 0.5) }' && break
    echo "   load average $load; waiting for the machine to go quiet" >&2
    sleep 5
  done
fi

command -v hyperfine >/dev/null || echo "bench.sh: hyperfine not found (apt-get install -y hyperfine); using the built-in timing loop" >&2
command -v zstd >/dev/null || echo "bench.sh: zstd CLI not found (apt-get install -y zstd); its column stays empty" >&2
[[ -x /usr/bin/time ]] || echo "bench.sh: /usr/bin/time not found (apt-get install -y time); no peak memory" >&2

extra=()
[[ $quick == 1 ]] && extra+=(--runs 3 --skip-sweep)
echo "== timing (progress below; tables on stdout)" >&2
"$target/release/bench" --vatbake "$target/release/vatbake" --work "$work" \
  --reference "$models/fox-reference.glb" --spec "$models/fox-spec.glb" \
  ${extra[@]+"${extra[@]}"} ${bench_args[@]+"${bench_args[@]}"}

if [[ $profile == 1 ]]; then
  if command -v perf >/dev/null; then
    echo
    echo "## perf: vatbake bake fox-reference.glb --zstd-level 1, 1 core (self time, symbols ≥ 1%)"
    echo
    echo '```'
    RAYON_NUM_THREADS=1 perf record -q -F 999 -g -o "$work/perf.data" -- taskset -c 0 "$target/release/vatbake" \
      bake "$models/fox-reference.glb" -o "$work/out/perf" --points all --zstd-level 1 -q >/dev/null 2>&1
    perf report -i "$work/perf.data" --no-children --stdio --percent-limit 1 -g none 2>/dev/null \
      | grep -E '^ +[0-9]' || true
    echo '```'
  else
    echo "bench.sh: perf not found (apt-get install -y linux-perf); no profile" >&2
  fi
fi
