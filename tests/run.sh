#!/usr/bin/env bash
# The project's test command (README): the Rust tests, then the independent checks in
# node (three.js evaluation, KTX2 readers, the Khronos glTF validator) against the
# binary the Rust tests just built. Sets up what it needs on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# Wall and CPU time per stage, printed at the end (also when a stage fails), so that a CI
# log says where the time went. `stage NAME` ends the stage running and starts NAME. CPU:
# user + sys of the commands the stage waited for (this shell's children, from
# /proc/$$/stat, in clock ticks); the WebAssembly job's own line gives its CPU.
ticks=$(getconf CLK_TCK)
cpu_ticks() { local f; read -ra f <"/proc/$$/stat"; echo $((f[15] + f[16])); }
stage_names=() stage_secs=() stage_cpus=() stage_name="" stage_start=$SECONDS run_start=$SECONDS
stage_cpu=$(cpu_ticks)
stage() {
  local now
  now=$(cpu_ticks)
  if [ -n "$stage_name" ]; then
    stage_names+=("$stage_name") stage_secs+=($((SECONDS - stage_start))) stage_cpus+=($(((now - stage_cpu) / ticks)))
  fi
  stage_name=$1 stage_start=$SECONDS stage_cpu=$now
}

# The npm package's WebAssembly build, in the background from here on at the lowest CPU
# priority (tests/wasm-job.sh; .ci/run starts it before its lints and says so with
# VATBAKE_WASM_JOB). Its stages at the end wait for it.
if [ -z "${VATBAKE_WASM_JOB:-}" ]; then
  tests/wasm-job.sh start &
fi
wasm_skipped=""

# What a fresh machine lacks, installed by one apt-get call in the background while cargo
# compiles: zstd (an independent inflater for the KTX2 level: vat-ktx2's tests require it
# when VAT_REQUIRE_ZSTD is set, as here), Chromium (tests/browser), and Godot 3 (Debian's
# godot3, 3.2.3: the X11 build) on a virtual display (Xvfb) with Mesa's software OpenGL
# (llvmpipe) for tests/browser/godot.test.mjs. Then the pinned node packages (npm ci).
missing=()
command -v zstd >/dev/null || missing+=(zstd)
if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_BIN:-}" ]; then missing+=(chromium); fi
command -v godot3 >/dev/null || missing+=(godot3)
command -v Xvfb >/dev/null || missing+=(xvfb)
dpkg -s libgl1-mesa-dri >/dev/null 2>&1 || missing+=(libgl1-mesa-dri)
# (The WebAssembly job installs its own: clang, llvm, wasi-libc; one apt-get at a time.)
# The Vite example's packages (vite) last, and not required: when they cannot be
# installed, the example's test is reported as skipped with the reason.
setup_log=$(mktemp) vite_status=$(mktemp)
setup() {
  if [ ${#missing[@]} -gt 0 ]; then
    echo "apt-get install ${missing[*]}"
    flock "${TMPDIR:-/tmp}/vatbake-apt.lock" sh -c \
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null' _ "${missing[@]}"
  fi
  local dir
  for dir in tests/js runtimes/three tests/browser; do
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  done
  if [ "${VATBAKE_WASM:-}" != 0 ]; then
    npm ci --prefix runtimes/cli/example/vite --no-audit --no-fund --loglevel=error && echo ok >"$vite_status" ||
      echo "\`npm ci --prefix runtimes/cli/example/vite\` failed (no network?): its output is above" >"$vite_status"
  fi
}
setup >"$setup_log" 2>&1 &
setup_pid=$!
setup_wait() {  # once: wait for the background setup, show its output, fail if it failed
  [ -n "$setup_pid" ] || return 0
  local status=0
  wait "$setup_pid" || status=$?
  setup_pid=""
  cat "$setup_log"
  rm -f "$setup_log"
  if [ $status -ne 0 ]; then
    echo "tests/run.sh: setup (apt-get install ${missing[*]:-nothing}; npm ci) failed" >&2
    return $status
  fi
}

finish() {
  local status=$?
  setup_wait >/dev/null 2>&1 || true  # never leave apt-get or npm running behind us
  tests/wasm-job.sh stop               # nor the WebAssembly build, when a stage failed first
  stage ""
  echo "tests/run.sh stage times (wall s, CPU s):"
  local i
  for i in "${!stage_names[@]}"; do printf '  %-18s %5d %5d\n' "${stage_names[$i]}" "${stage_secs[$i]}" "${stage_cpus[$i]}"; done
  printf '  %-18s %5d%s\n' total $((SECONDS - run_start)) "$([ $status -eq 0 ] || echo "  (failed, exit $status)")"
  if [ -n "$wasm_skipped" ]; then echo "tests/run.sh: skipped: $wasm_skipped"; fi
  rm -f "$vite_status"
}
trap finish EXIT

# Every test target compiled first (one build of the tree the later steps share), so
# that the background setup has the compile time to finish in.
stage test-build
cargo test --workspace --locked --no-run
stage setup-wait
setup_wait
stage test-run
VAT_REQUIRE_ZSTD=1 cargo test --workspace --locked

# Every crate packages on its own (metadata, readme, and no file from outside its folder,
# such as the alias table vat-audit embeds): what a publish would upload, not built
# (about 15 seconds). The build-script example is not published.
stage package
cargo package --no-verify --allow-dirty --locked --workspace --exclude vatbake-example-build-rs --quiet

# The API docs build warning-free (every crate has #![warn(missing_docs)]).
stage doc
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --locked --quiet

# The binary the node checks run: vatbake on its own features (without the workspace's
# dev-dependencies), which is what `cargo install` builds next.
stage build
cargo build -p vatbake --locked --quiet
export VATBAKE_BIN="$PWD/target/debug/vatbake"

# The README's install line. --debug reuses the build above; a release install on a fresh
# machine compiles every dependency again (minutes) and tests nothing more.
stage install
install_root=$(mktemp -d)
cargo install --path crates/vatbake --locked --debug --root "$install_root" --quiet
"$install_root/bin/vatbake" --version | grep -q '^vatbake '
"$install_root/bin/vatbake" bake fixtures/SimpleSkin/SimpleSkin.gltf -o "$install_root/out"
test -s "$install_root/out/SimpleSkin.vat.json" && test -s "$install_root/out/SimpleSkin.vat.ktx2"
echo "installed $("$install_root/bin/vatbake" --version): bake exit 0"
rm -rf "$install_root"

stage node-js
npm test --prefix tests/js

# The three.js runtime package (runtimes/three, @vatbake/three): its own tests in node,
# no browser (a few seconds); tests/browser below draws it.
stage node-three
npm test --prefix runtimes/three

# three.js playback in headless Chromium through the runtime package (tests/browser:
# playback, the package's features, the bake-side features, other engines' players,
# Godot 3): about two minutes (113 s in CI).
stage node-browser
npm test --prefix tests/browser

# The npm package (runtimes/cli): the command line built for wasm32-wasip1 (the job
# started above: `wasm-build` is the wait for what it has left), then its tests against
# the binary above (every fixture byte for byte, the API, npm pack and npx from a clean
# folder, the Vite plugin example, the page in Chromium with its playback's IoU).
stage wasm-build
wasm_status=0
tests/wasm-job.sh wait || wasm_status=$?
if [ $wasm_status -eq 3 ]; then
  wasm_skipped="wasm-build and node-wasm (the npm package, runtimes/cli): $(sed 's/^skipped: //' "${CARGO_TARGET_DIR:-target}/wasm-job/status")"
elif [ $wasm_status -ne 0 ]; then
  exit $wasm_status
else
  stage node-wasm
  npm test --prefix runtimes/cli
  # The Vite plugin example: `vite build` bakes an import marked ?vat (vite from npm,
  # installed by the setup above).
  if [ "$(cat "$vite_status")" = ok ]; then
    npm test --prefix runtimes/cli/example/vite
  else
    wasm_skipped="the Vite example (runtimes/cli/example/vite): $(cat "$vite_status")"
  fi
  # The page (runtimes/cli/web): a bake in a Worker in headless Chromium.
  node --test runtimes/cli/web/page.test.mjs
fi
