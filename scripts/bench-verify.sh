#!/usr/bin/env bash
# Verify benchmark (issue 15, docs/PERFORMANCE.md): 300 units baked from the fixtures,
# each with its own settings, then `vatbake roster --verify` over all of them (every
# texture decoded, every source evaluated again and compared) on all cores. The bake
# is not timed; each verify run is. Prints the wall times and their median.
#   bash scripts/bench-verify.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=target/bench/verify300
rm -rf "$work" && mkdir -p "$work"
cargo build --release -q -p vatbake

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
  "../../../fixtures/SimpleSkin/SimpleSkin.gltf|points = \"all\""
  "../../../fixtures/Fox/Fox.glb|points = \"all\"
max_width = 500"
)
{
  echo 'output = "out"'
  echo '[defaults]'
  echo 'points = 2500'
  for i in $(seq 0 299); do
    entry=${sources[$((i % ${#sources[@]}))]}
    echo
    echo '[[unit]]'
    printf 'name = "unit_%03d"\n' "$i"
    echo "source = \"${entry%%|*}\""
    echo "${entry#*|}"
  done
} > "$work/roster.toml"

vatbake=target/release/vatbake
"$vatbake" roster "$work/roster.toml" -q
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
times=()
for r in $(seq 1 "$runs"); do
  s=$(date +%s.%N); "$vatbake" roster "$work/roster.toml" --verify -q; e=$(date +%s.%N)
  times+=("$(awk "BEGIN {printf \"%.2f\", $e - $s}")")
done
summary=$("$vatbake" roster "$work/roster.toml" --verify --json)
echo "units: $(echo "$summary" | grep -c '"status"'), cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "roster --verify (s): runs ${times[*]}  median $(printf '%s\n' "${times[@]}" | median)"
echo "$summary" | grep -E '^  "(passed|failed|errors)"'
echo "texels verified: $(find "$work/out" -name '*.vat.json' -exec cat {} + | grep -A8 '"texture"' | awk -F': ' '/"width"/{w=$2+0} /"height"/{print w*($2+0)}' | awk '{s+=$1} END {print s}')"
