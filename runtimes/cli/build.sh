#!/usr/bin/env bash
# Builds vatbake.wasm, the package's module: the vatbake command line for wasm32-wasip1
# (crates/vatbake with its `cli` feature), its C and C++ (zstd, meshoptimizer) compiled
# by Debian's clang against the WASI sysroot (wasm/cc.sh says how zstd's multithreaded
# frames are kept). Needs: rustup's wasm32-wasip1 target, clang, lld, llvm-ar and
# wasi-libc (apt-get install clang lld llvm wasi-libc).
#
# `build.sh --ci`: the wasm-ci profile (the root Cargo.toml: release at opt-level 1, the
# same bytes for less build time), as tests/run.sh builds it.
set -euo pipefail
profile=release
case "${1:-}" in
  --ci) profile=wasm-ci ;;
  "") ;;
  *) echo "usage: runtimes/cli/build.sh [--ci]" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if ! rustup target list --installed | grep -x wasm32-wasip1 >/dev/null; then
  rustup target add wasm32-wasip1
fi
export CC_wasm32_wasip1="$here/wasm/cc.sh"
export AR_wasm32_wasip1=llvm-ar
# The wrapper's text is part of zstd-sys's build: a change to it rebuilds that crate.
export CFLAGS_wasm32_wasip1="-DVATBAKE_WASM_CC=$(sha256sum "$here/wasm/cc.sh" "$here/wasm/include/pthread.h" | sha256sum | cut -c1-16)"
cd "$root"
# WebAssembly SIMD: glam then computes as it does with SSE2 natively (its scalar code
# adds in another order, and the texels differed in their last bits).
export CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS="-C target-feature=+simd128"
cargo build -p vatbake --bin vatbake --target wasm32-wasip1 --profile "$profile" --locked
cp "${CARGO_TARGET_DIR:-target}/wasm32-wasip1/$profile/vatbake.wasm" "$here/vatbake.wasm"
ls -l "$here/vatbake.wasm"
