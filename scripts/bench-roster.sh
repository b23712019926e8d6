#!/usr/bin/env bash
# Roster benchmark (issue 5, docs/PERFORMANCE.md): 269 units made of the fixtures and a
# generated 28,374-point character, each with its own settings; first bake, then a
# no-change rebake, on all cores. Prints the wall times and the roster's weight.
#   bash scripts/bench-roster.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=target/bench/roster269
rm -rf "$work" && mkdir -p "$work"
cargo build --release -q -p vatbake -p vat-bench
target/release/gen-big-model --preset reference -o "$work/big.glb" >/dev/null

# The sources, with a per-source variant of settings a game would give such a unit.
sources=(
  "../../../fixtures/Fox/Fox.glb|points = 1200"
  "../../../fixtures/Fox/gltfpack/Fox.meshopt.glb|max_frames = 48"
  "../../../fixtures/CesiumMan/glTF-Binary/CesiumMan.glb|points = 1500
max_frames = 16"
  "../../../fixtures/Kenney-MiniCharacters/character-female-a.glb|points = 1000"
  "../../../fixtures/Kenney-PlatformerCharacter/character.glb|fps = 24"
  "../../../fixtures/MorphStressTest/MorphStressTest.gltf|max_frames = 60"
  "../../../fixtures/RiggedSimple/rigged-simple.gltf|fps = 20"
  "../../../fixtures/gltfpack/character-female-a.meshopt.glb|max_frames = 32"
  "big.glb|points = 4000"
)
{
  echo 'output = "out"'
  echo '[defaults]'
  echo 'points = 2500'
  echo 'max_width = 8192'
  for i in $(seq 0 268); do
    entry=${sources[$((i % ${#sources[@]}))]}
    echo
    echo '[[unit]]'
    printf 'name = "unit_%03d"\n' "$i"
    echo "source = \"${entry%%|*}\""
    echo "${entry#*|}"
  done
} > "$work/roster.toml"

vatbake=target/release/vatbake
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
first=(); again=()
for r in $(seq 1 "$runs"); do
  rm -rf "$work/out"
  s=$(date +%s.%N); "$vatbake" roster "$work/roster.toml" -q; e=$(date +%s.%N)
  first+=("$(awk "BEGIN {printf \"%.2f\", $e - $s}")")
  s=$(date +%s.%N); "$vatbake" roster "$work/roster.toml" -q; e=$(date +%s.%N)
  again+=("$(awk "BEGIN {printf \"%.2f\", $e - $s}")")
done
summary=$("$vatbake" roster "$work/roster.toml" --json -q)
echo "units: $(echo "$summary" | grep -c '"name"'), cores: $(nproc)"
echo "first bake (s):      runs ${first[*]}  median $(printf '%s\n' "${first[@]}" | median)"
echo "no-change rebake (s): runs ${again[*]}  median $(printf '%s\n' "${again[@]}" | median)"
echo "$summary" | grep -E '"(baked|skipped|failed|total_texture_bytes|total_mesh_bytes)"'
