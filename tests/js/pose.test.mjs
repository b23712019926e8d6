// `vatbake pose`: the static GLB it writes of a clip at a time, against three.js's own
// evaluation of the source at that time (GLTFLoader + AnimationMixer, the SkinnedMesh's
// skinned positions; lib/three-source.mjs), on every bundled model with clips: the
// characters, their Draco and gltfpack (quantized, meshopt) versions and the exporters'
// layouts of fixtures/variants. Each clip at its start, a third in, two thirds in, and
// its end. The written file is read back with three's GLTFLoader and passes
// gltf-validator with no errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import validator from 'gltf-validator';
import { BUNDLED, FIXTURES, vatbakeBin } from './lib/bake.mjs';
import { loadWithThree, pointRanges, captureRest, poser, worldPoints } from './lib/three-source.mjs';

const MODELS = [
  ...BUNDLED,
  'CesiumMan/glTF-Draco/CesiumMan.gltf',
  'Fox/gltfpack/Fox.meshopt.glb',
  ...['draco', 'gltfpack', 'variants'].flatMap((folder) =>
    fs
      .readdirSync(path.join(FIXTURES, folder))
      .filter((f) => f.endsWith('.glb') && f !== 'avatar-no-clips.glb' && f !== 'library-mixamo.glb')
      .sort()
      .map((f) => `${folder}/${f}`),
  ),
];

// Positions: within 1e-4 of the pose's bounding-box diagonal. Normals: within this many
// degrees (float32 rounding of the same matrices).
const POSITION_FRACTION = 1e-4;
const NORMAL_DEGREES = 0.01;
// gltfpack's int8 normals under meshopt's OCTAHEDRAL filter: vatbake's decoder
// (meshoptimizer 1.3, through the meshopt crate) and three's MeshoptDecoder (built from
// 1.1) round some of them to neighbouring int8 values, one step of 1/127 apart (0.45°
// at most): the source normals themselves differ by that before any pose.
const OCTAHEDRAL_NORMAL_DEGREES = 0.5;

/** Whether the model's normals are int8 under meshopt's OCTAHEDRAL filter. */
function octahedralNormals(json) {
  return (json.meshes || []).some((mesh) =>
    mesh.primitives.some((p) => {
      const accessor = json.accessors[p.attributes.NORMAL];
      const view = accessor && json.bufferViews[accessor.bufferView];
      return view?.extensions?.EXT_meshopt_compression?.filter === 'OCTAHEDRAL';
    }),
  );
}

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-pose-'));
process.on('exit', () => {
  if (!process.env.VATBAKE_JS_KEEP) fs.rmSync(out, { recursive: true, force: true });
});

/** `vatbake pose ... --json`: its report; throws with the tool's words on failure. */
function pose(args) {
  const bin = vatbakeBin();
  if (!fs.existsSync(bin)) throw new Error(`vatbake binary not found at ${bin}: build it first (cargo build -p vatbake) or set VATBAKE_BIN`);
  const run = spawnSync(bin, ['pose', ...args, '--json'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`vatbake pose ${args.join(' ')} exited with ${run.status}\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Which of the reference's points a triangle uses: the points pose writes, in order. */
function usedPoints(ranges, points) {
  const used = new Uint8Array(points);
  for (const r of ranges) {
    if (!r.object.isMesh) continue;
    const index = r.object.geometry.index;
    if (index) for (let k = 0; k < index.count; k++) used[r.start + index.getX(k)] = 1;
    else used.fill(1, r.start, r.start + r.count);
  }
  const list = [];
  used.forEach((u, i) => u && list.push(i));
  return list;
}

const summary = [];

for (const model of MODELS) {
  test(`pose ${model}: every clip at 0, 1/3, 2/3 and its end agrees with three.js`, async (t) => {
    const file = path.join(FIXTURES, model);
    const stem = model.replace(/[/.]/g, '_');
    const rest = pose([file, '-o', path.join(out, `${stem}.rest.glb`)]);
    assert.ok(rest.clips.length > 0, `${model}: no clips`);
    const { gltf, json } = await loadWithThree(file);
    const { ranges, points, scene } = pointRanges(gltf, json);
    const setPose = poser(scene, captureRest(scene));
    const kept = usedPoints(ranges, points);
    const normalDegrees = octahedralNormals(json) ? OCTAHEDRAL_NORMAL_DEGREES : NORMAL_DEGREES;
    let worstPosition = 0;
    let worstNormal = 0;
    let validated = false;
    for (const clip of rest.clips) {
      for (const fraction of [0, 1 / 3, 2 / 3, 1]) {
        const time = Math.fround(clip.duration * fraction);
        const glb = path.join(out, `${stem}.pose.glb`);
        const report = pose([file, '--clip', clip.name, '--time', String(time), '-o', glb]);
        assert.equal(report.height, report.written_height);
        setPose(report.source_animations.map((i) => gltf.animations[i]), time);
        const { pos, nor } = worldPoints(ranges, points, { normals: true });
        // The written file, through three's own loader.
        const written = await loadWithThree(glb);
        let geometry = null;
        written.gltf.scene.traverse((o) => {
          if (o.isMesh && !geometry) geometry = o.geometry;
        });
        const position = geometry.attributes.position;
        const normal = geometry.attributes.normal;
        assert.equal(position.count, kept.length, `${model} "${clip.name}": vertices`);
        // The reference pose's box.
        const lo = [Infinity, Infinity, Infinity];
        const hi = [-Infinity, -Infinity, -Infinity];
        for (const i of kept) for (let c = 0; c < 3; c++) [lo[c], hi[c]] = [Math.min(lo[c], pos[3 * i + c]), Math.max(hi[c], pos[3 * i + c])];
        const diagonal = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
        let far = 0;
        let turned = 0;
        kept.forEach((i, v) => {
          const d = Math.hypot(position.getX(v) - pos[3 * i], position.getY(v) - pos[3 * i + 1], position.getZ(v) - pos[3 * i + 2]);
          far = Math.max(far, d);
          if (Number.isNaN(nor[3 * i])) return;
          const dot = normal.getX(v) * nor[3 * i] + normal.getY(v) * nor[3 * i + 1] + normal.getZ(v) * nor[3 * i + 2];
          const length = Math.hypot(normal.getX(v), normal.getY(v), normal.getZ(v));
          turned = Math.max(turned, (Math.acos(Math.min(1, Math.max(-1, dot / length))) * 180) / Math.PI);
        });
        const at = `${model} "${clip.name}" at ${time} s`;
        assert.ok(far <= POSITION_FRACTION * diagonal, `${at}: a point ${far} from three.js's, over ${POSITION_FRACTION} of the diagonal ${diagonal}`);
        assert.ok(turned <= normalDegrees, `${at}: a normal ${turned}° from three.js's`);
        worstPosition = Math.max(worstPosition, far / diagonal);
        worstNormal = Math.max(worstNormal, turned);
        if (!validated) {
          const result = await validator.validateBytes(new Uint8Array(fs.readFileSync(glb)), { maxIssues: 0, writeTimestamp: false });
          const errors = result.issues.messages.filter((m) => m.severity === 0).slice(0, 10);
          assert.equal(result.issues.numErrors, 0, `${at}: gltf-validator errors:\n${errors.map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`).join('\n')}`);
          validated = true;
        }
      }
    }
    t.diagnostic(`${model}: positions within ${worstPosition.toExponential(2)} of the diagonal, normals within ${worstNormal.toFixed(4)}°`);
    summary.push([worstPosition, octahedralNormals(json) ? 0 : worstNormal, octahedralNormals(json) ? worstNormal : 0]);
  });
}

test('pose: the worst figures over every model', () => {
  assert.equal(summary.length, MODELS.length);
  const position = Math.max(...summary.map((s) => s[0]));
  const normal = Math.max(...summary.map((s) => s[1]));
  const octahedral = Math.max(...summary.map((s) => s[2]));
  console.log(
    `pose vs three.js over ${MODELS.length} models: positions within ${position.toExponential(2)} of the diagonal, ` +
      `normals within ${normal.toFixed(4)}° (${octahedral.toFixed(4)}° with octahedral int8 normals)`,
  );
});
