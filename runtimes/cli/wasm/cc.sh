#!/bin/sh
# The C compiler cargo's build scripts use for wasm32-wasip1 (build.sh sets
# CC_wasm32_wasip1 to this file): Debian's clang with the WASI sysroot, and one change
# for zstd. vatbake's texture is compressed in zstd's multithreaded mode (its frames
# differ from the single-threaded mode's), and WASI has no threads: zstd-sys is built
# with ZSTD_MULTITHREAD for everything but its thread pool (lib/common/pool.c), whose
# single-threaded variant runs each job at once in the caller. The frames are then
# those the native binary writes with any number of workers; pthread.h (include/)
# gives the locks and conditions zstd's multithreaded code takes, none of them needed
# with jobs that finish as they are handed over.
here=$(dirname "$0")
pool= held=
for arg do
  shift
  if [ -n "$held" ]; then  # the argument after -isystem
    held=
    # meshopt's stand-in C headers for wasm lack functions its sources call
    # (floorf, ceilf): the WASI sysroot's headers instead.
    [ "$arg" = include_wasm32 ] && continue
    set -- "$@" -isystem
  fi
  case $arg in
    -isystem) held=1; continue ;;
    -pthread) continue ;;  # no threads (and no atomics) in the module
    --target=*) continue ;;  # clang 14 knows the target as wasm32-wasi
    *zstd/lib/common/pool.c) pool=-UZSTD_MULTITHREAD ;;
  esac
  set -- "$@" "$arg"
done
# WebAssembly SIMD, as the Rust code is built (build.sh): meshoptimizer's decoding
# filters then take their SIMD path, whose results are those of its SSE path natively
# (the scalar path rounds otherwise).
exec "${VATBAKE_WASM_CLANG:-clang}" --target=wasm32-wasi -msimd128 -isystem "$here/include" "$@" $pool
