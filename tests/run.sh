#!/usr/bin/env bash
# The project's test command (README): the Rust tests, then the independent checks in
# node (three.js evaluation, KTX2 readers, the Khronos glTF validator) against the
# binary the Rust tests just built. Sets up what it needs on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# The zstd command-line tool: an independent inflater for the KTX2 level (vat-ktx2's
# tests require it when VAT_REQUIRE_ZSTD is set, as here).
if ! command -v zstd >/dev/null; then
  apt-get update -qq && apt-get install -y -qq zstd >/dev/null
fi
VAT_REQUIRE_ZSTD=1 cargo test --workspace --locked

# Every crate packages on its own (metadata, readme, and no file from outside its folder,
# such as the alias table vat-audit embeds): what a publish would upload, not built
# (about 15 seconds). The build-script example is not published.
cargo package --no-verify --allow-dirty --locked --workspace --exclude vatbake-example-build-rs --quiet

# The API docs build warning-free (every crate has #![warn(missing_docs)]).
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --locked --quiet

cargo build -p vatbake --locked --quiet
export VATBAKE_BIN="$PWD/target/debug/vatbake"

# The library in a build script (crates/vatbake/examples/build_rs): the Fox is baked when
# the example is built, and the binary prints what the embedded description says.
example=$(cargo run -p vatbake-example-build-rs --locked --quiet)
echo "$example"
case "$example" in
  "Fox.glb: 1728 points × 162 rows in 3 clips (Survey, Walk, Run); texture 1728×162 "*" bytes") ;;
  *) echo "tests/run.sh: the build_rs example printed an unexpected line" >&2; exit 1 ;;
esac

# The README's install line. --debug reuses the build above; a release install on a fresh
# machine compiles every dependency again (minutes) and tests nothing more.
install_root=$(mktemp -d)
cargo install --path crates/vatbake --locked --debug --root "$install_root" --quiet
"$install_root/bin/vatbake" --version | grep -q '^vatbake '
"$install_root/bin/vatbake" bake fixtures/SimpleSkin/SimpleSkin.gltf -o "$install_root/out"
test -s "$install_root/out/SimpleSkin.vat.json" && test -s "$install_root/out/SimpleSkin.vat.ktx2"
echo "installed $("$install_root/bin/vatbake" --version): bake exit 0"
rm -rf "$install_root"
npm ci --prefix tests/js --no-audit --no-fund --loglevel=error
npm test --prefix tests/js

# The three.js runtime package (runtimes/three, @vatbake/three): its own tests in node,
# no browser (a few seconds); tests/browser below draws it.
npm ci --prefix runtimes/three --no-audit --no-fund --loglevel=error
npm test --prefix runtimes/three

# three.js playback in headless Chromium through the runtime package (tests/browser:
# playback, the package's features, the bake-side features, other engines' players,
# Godot 3): about two minutes (113 s in CI).
if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_BIN:-}" ]; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
# Godot 3 (Debian's godot3, 3.2.3: the X11 build) on a virtual display (Xvfb) with Mesa's
# software OpenGL (llvmpipe): tests/browser/godot.test.mjs renders the --target godot bake in it.
if ! command -v godot3 >/dev/null || ! command -v Xvfb >/dev/null || ! dpkg -s libgl1-mesa-dri >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq godot3 xvfb libgl1-mesa-dri >/dev/null
fi
npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
npm test --prefix tests/browser
