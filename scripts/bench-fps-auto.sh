#!/usr/bin/env bash
# `--fps auto` against the fixed 30 rows per second (docs/PERFORMANCE.md, "Rows chosen by
# error"): every bundled fixture and both generated models baked both ways, each bake
# verified (verify reports every clip's error between rows, at every 1/60 s that is not
# on a row); prints per clip the rows and that error as a fraction of the bounds
# diagonal, and per model the rows, GPU bytes and texture bytes.
# Usage: scripts/bench-fps-auto.sh [extra flags for the auto bake, e.g. --fps-tolerance 0.005]
set -euo pipefail
cd "$(dirname "$0")/.."
VATBAKE=${VATBAKE:-target/release/vatbake}
OUT=${OUT:-target/bench/fps-auto}
models=(fixtures/Fox/Fox.glb fixtures/CesiumMan/glTF-Binary/CesiumMan.glb
  fixtures/Kenney-MiniCharacters/character-female-a.glb fixtures/Kenney-PlatformerCharacter/character.glb
  fixtures/RiggedSimple/rigged-simple.gltf fixtures/SimpleSkin/SimpleSkin.gltf
  fixtures/AnimatedMorphCube/AnimatedMorphCube.gltf fixtures/MorphStressTest/MorphStressTest.gltf
  target/bench/models/fox-reference.glb target/bench/models/fox-spec.glb)
mkdir -p "$OUT/fixed" "$OUT/auto"
for tag in fixed auto; do
  for m in "${models[@]}"; do
    n=$(basename "$m"); n=${n%.*}
    flags=(); [ $tag = auto ] && flags=(--fps auto "$@")
    "$VATBAKE" bake "$m" -o "$OUT/$tag/$n" -q --json "${flags[@]}" > "$OUT/$tag/$n.bake.json"
    "$VATBAKE" verify "$OUT/$tag/$n/$n.vat.json" --source "$m" --json > "$OUT/$tag/$n.verify.json"
  done
done
python3 - "$OUT" <<'PY'
import json, glob, os, sys, statistics
out = sys.argv[1]
def load(tag, n, kind): return json.load(open(f"{out}/{tag}/{n}.{kind}.json"))
names = sorted(os.path.basename(f)[:-len(".bake.json")] for f in glob.glob(f"{out}/fixed/*.bake.json"))
print("model | clip | rows 30/s | error 30/s | rows auto | auto fps | error auto")
fixed_errors, totals = [], {"fixed": [0, 0], "auto": [0, 0]}
worst = {"fixed": 0.0, "auto": 0.0}
for n in names:
    v = {t: load(t, n, "verify") for t in ("fixed", "auto")}
    b = {t: load(t, n, "bake") for t in ("fixed", "auto")}
    d = {t: json.load(open(v[t]["description"])) for t in ("fixed", "auto")}
    for cf, ca, df, da in zip(v["fixed"]["clips"], v["auto"]["clips"], d["fixed"]["clips"], d["auto"]["clips"]):
        ef, ea = cf["off_row_max_error_fraction"], ca["off_row_max_error_fraction"]
        fixed_errors.append(ef)
        worst["fixed"], worst["auto"] = max(worst["fixed"], ef), max(worst["auto"], ea)
        print(f"{n} | {cf['name']} | {df['rows']} | {ef:.2e} | {da['rows']} | {da['auto_rate']['fps']:g} | {ea:.2e}")
    for t in ("fixed", "auto"):
        totals[t][0] += b[t]["gpu_bytes"]; totals[t][1] += b[t]["texture_bytes"]
    print(f"{n} | all | {d['fixed']['rows']} | | {d['auto']['rows']} | | | GPU {b['fixed']['gpu_bytes']} -> {b['auto']['gpu_bytes']}"
          f" | texture {b['fixed']['texture_bytes']} -> {b['auto']['texture_bytes']} | verify {v['fixed']['passed']} {v['auto']['passed']}")
moving = [e for e in fixed_errors if e > 1e-5]
print(f"clips {len(fixed_errors)}, moving {len(moving)}: median error at 30/s of the moving {statistics.median(moving):.2e}")
print(f"worst error: 30/s {worst['fixed']:.2e}, auto {worst['auto']:.2e}")
for t in ("fixed", "auto"):
    print(f"total {t}: GPU {totals[t][0]}, texture {totals[t][1]}")
PY
