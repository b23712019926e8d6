#!/bin/sh
# Runs one fuzz target for a fixed time: fuzz/run.sh TARGET SECONDS [extra libFuzzer flags]
# Stable rustc acts as nightly for cargo-fuzz's -Z flags through RUSTC_BOOTSTRAP=1.
set -e
cd "$(dirname "$0")"
target=$1; seconds=$2; shift 2
dict=""
case $target in gltf_load|evaluate) dict="-dict=gltf.dict" ;; esac
mkdir -p logs
RUSTC_BOOTSTRAP=1 exec cargo fuzz run -O -a "$target" -- \
    -max_total_time="$seconds" -max_len=300000 -timeout=20 -print_final_stats=1 $dict "$@" \
    > "logs/$target.log" 2>&1
