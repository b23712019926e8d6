#!/usr/bin/env bash
# The npm package's WebAssembly build (runtimes/cli/build.sh --ci) as a background job of
# the test run, so that it takes the CPU the other stages leave idle (linking, running
# tests, node, Chromium) instead of adding minutes at the end. It runs at the lowest CPU
# priority (nice 19) in its own profile and folders (wasm-ci: target/wasm-ci and
# target/wasm32-wasip1/wasm-ci), so cargo's lock on target/debug never makes the native
# builds wait for it, nor it for them.
#
#   tests/wasm-job.sh start & run it (its state in target/wasm-job/); the caller puts it
#                             in the background, so that the caller reaps it and its
#                             CPU time counts in the caller's (time bash .ci/run)
#   tests/wasm-job.sh wait    wait for it, print its log; exit 0 built, 1 failed,
#                             3 skipped (the reason printed: see below)
#   tests/wasm-job.sh stop    end it if it still runs (a run that fails before `wait`)
#
# The job installs what it needs when it is missing: rustup's wasm32-wasip1 target, and
# Debian's clang, llvm (llvm-ar) and wasi-libc (the C headers zstd and meshoptimizer
# build against). When that cannot be done (no network, no apt-get), the job is skipped
# with that reason, which tests/run.sh prints at the end: never a silent skip. A build
# that fails is a failure. VATBAKE_WASM=0 skips it on purpose (also reported).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${CARGO_TARGET_DIR:-$PWD/target}/wasm-job"

job() {  # the background job itself: writes $dir/status (built, failed, or skipped: …)
  local status=0
  echo $$ >"$dir/pid"
  skip() { echo "skipped: $1" >"$dir/status"; exit 0; }
  [ "${VATBAKE_WASM:-}" != 0 ] || skip "VATBAKE_WASM=0"
  if ! rustup target list --installed 2>/dev/null | grep -x wasm32-wasip1 >/dev/null; then
    if ! rustup target add wasm32-wasip1; then
      skip "\`rustup target add wasm32-wasip1\` failed (no network?): its output is in the log above"
    fi
  fi
  local missing=()
  command -v clang >/dev/null || missing+=(clang)
  command -v llvm-ar >/dev/null || missing+=(llvm)
  [ -d /usr/include/wasm32-wasi ] || missing+=(wasi-libc)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "apt-get install ${missing[*]}"
    # One apt-get at a time: tests/run.sh's setup installs its own packages meanwhile.
    if ! command -v apt-get >/dev/null ||
      ! flock "${TMPDIR:-/tmp}/vatbake-apt.lock" sh -c \
        'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null' _ "${missing[@]}"; then
      skip "\`apt-get install ${missing[*]}\` failed (no network, or no apt-get?): its output is in the log above"
    fi
  fi
  local TIMEFORMAT="wasm build: %0R s wall, %0U s user + %0S s sys (nice 19)"
  time nice -n 19 runtimes/cli/build.sh --ci || status=$?
  if [ $status -eq 0 ]; then echo built >"$dir/status"; else echo failed >"$dir/status"; fi
}

case "${1:-}" in
  start)
    rm -rf "$dir"
    mkdir -p "$dir"
    export -f job
    # Its own session (a process group `stop` can end whole); --wait keeps this process
    # as the job's parent until it ends.
    exec setsid --wait bash -c 'set -euo pipefail; dir=$1; job' _ "$dir" >"$dir/log" 2>&1 </dev/null
    ;;
  wait)
    [ -d "$dir" ] || { echo "tests/wasm-job.sh: no job started (run \`tests/wasm-job.sh start\` first)" >&2; exit 1; }
    # The job is the starting shell's child, not ours: wait for its status file.
    while [ ! -s "$dir/status" ]; do
      if [ -s "$dir/pid" ] && ! kill -0 "$(cat "$dir/pid")" 2>/dev/null && [ ! -s "$dir/status" ]; then
        cat "$dir/log"
        echo "tests/wasm-job.sh: the job ended without a status" >&2
        exit 1
      fi
      sleep 1
    done
    cat "$dir/log"
    case $(cat "$dir/status") in
      built) exit 0 ;;
      skipped:*) cat "$dir/status"; exit 3 ;;
      *) echo "tests/wasm-job.sh: the WebAssembly build failed (log above)" >&2; exit 1 ;;
    esac
    ;;
  stop)
    # A run that fails at once may get here before the job has written its pid.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      [ -d "$dir" ] && [ ! -s "$dir/pid" ] && [ ! -s "$dir/status" ] || break
      sleep 0.5
    done
    if [ -s "$dir/pid" ] && [ ! -s "$dir/status" ]; then
      kill -- "-$(cat "$dir/pid")" 2>/dev/null || true
    fi
    ;;
  *)
    echo "usage: tests/wasm-job.sh start|wait|stop" >&2
    exit 2
    ;;
esac
