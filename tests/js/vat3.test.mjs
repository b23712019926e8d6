// --format vat3: the files read as SideFX Labs VAT 3 soft-body players read them and decoded
// with the soft-body formula of three-vat's shader (manthrax/three-vat ada013b, VATEffect.js,
// written here from the facts in docs/targets/FORMATS-NOTES.md, no code of theirs):
//   ratio = the data's "Active Pixels Ratio X/Y" (else from the bounds' tenths);
//   s = (uv1.y + frame / frameCount) · ratio.y; v = 1 − fract(s) (HDR); the texel
//   texelFetch(floor(size · (uv1.x · ratio.x, v))) of the texture three.js's EXRLoader
//   made (rows bottom-up); position = rest + texel.rgb; normal = the quaternion in _rot
//   applied to (0, 1, 0).
// The EXRs are read twice: as FloatType (exact: must land within float noise of our decode of
// the bake's KTX2) and as HalfFloatType, which is what three-vat gets (EXRLoader's default):
// within the half-float truncation EXRLoader applies, |offset| · 2^-10 + 2^-24 per axis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EXRLoader } from 'three/examples/jsm/loaders/EXRLoader.js';
import { DataUtils, FloatType, HalfFloatType } from 'three';
import validator from 'gltf-validator';
import { FIXTURES, BUNDLED } from './lib/bake.mjs';
import { referenceBake } from './lib/reference.mjs';
import { readGlb } from './lib/glb.mjs';
import { loadWithThree } from './lib/three-source.mjs';

// Houdini's keys (sorted, as it writes them) and the two three-vat reads besides.
const KEYS = [
  'Active Pixels Ratio X', 'Active Pixels Ratio Y', 'Axis System',
  'Bound Max X', 'Bound Max Y', 'Bound Max Z', 'Bound Min X', 'Bound Min Y', 'Bound Min Z',
  'Frame Count', 'Houdini FPS', 'Name', 'Spare Color Texture', 'Two Position Textures',
  'Use Compressed Normals', 'Use HDR Textures', 'VAT Type', 'Vertex Count',
];

/** The ratio a soft-body shader reads from one bound, in 32-bit floats as a GPU computes it. */
function ratioFromBound(b) {
  const f = Math.fround;
  let scaled = f(f(b) * 10);
  scaled = f(Math.floor(f(scaled * 10000) + 0.5) / 10000);
  return f(1 - f(Math.ceil(scaled) - scaled));
}

function readExr(file, type) {
  const bytes = fs.readFileSync(file);
  const loader = new EXRLoader();
  loader.setDataType(type);
  const exr = loader.parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const data = type === HalfFloatType ? Float64Array.from(exr.data, (h) => DataUtils.fromHalfFloat(h)) : exr.data;
  return { width: exr.width, height: exr.height, data };
}

/** The quaternion (x, y, z, w) applied to (0, 1, 0): v + 2 q.xyz × (q.xyz × v + w v). */
function rotateUp([x, y, z, w]) {
  const c = [-z, 0, x]; // q.xyz × (0, 1, 0)
  const a = [c[0], c[1] + w, c[2]];
  return [2 * (y * a[2] - z * a[1]), 1 + 2 * (z * a[0] - x * a[2]), 2 * (x * a[1] - y * a[0])];
}

const degrees = (a, b) => {
  const dot = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / Math.hypot(...a) / Math.hypot(...b);
  return (Math.acos(Math.min(1, Math.max(-1, dot))) * 180) / Math.PI;
};

for (const model of BUNDLED) {
  test(`vat3: ${model} decodes with the soft-body formula onto our positions`, async (t) => {
    const { desc, restPath, dir, stem, ours } = referenceBake(path.join(FIXTURES, model), ['--format', 'vat3']);
    assert.equal(desc.settings.format, 'vat3');

    const raw = fs.readFileSync(path.join(dir, `${stem}_data.json`), 'utf8');
    const list = JSON.parse(raw);
    assert.ok(Array.isArray(list) && list.length === 1, 'an array of one object');
    const data = list[0];
    assert.deepEqual(Object.keys(data), KEYS);
    const frames = data['Frame Count'];
    assert.equal(frames, Math.max(desc.rows, 2));
    assert.equal(data['Vertex Count'], desc.points);
    assert.equal(data['VAT Type'], 'Softbody');
    assert.equal(data['Axis System'], 'Right-Handed Y-Up');
    assert.equal(data['Use HDR Textures'], 1);
    assert.equal(data['Use Compressed Normals'], 0);
    assert.equal(data['Houdini FPS'], desc.settings.fps);
    const ratio = [data['Active Pixels Ratio X'], data['Active Pixels Ratio Y']];
    assert.deepEqual(ratio, [1, 1]);
    // The players that take the ratio from the bounds read the same 1 (Min Z for x, Max X for y).
    assert.deepEqual([ratioFromBound(data['Bound Min Z']), ratioFromBound(data['Bound Max X'])], [1, 1]);

    // The mesh as three-vat takes it: the first mesh three.js's GLTFLoader makes, uv1 its lookup uv.
    const meshFile = path.join(dir, `${stem}_mesh.glb`);
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(meshFile)), { uri: 'mesh.glb', maxIssues: 0, writeTimestamp: false });
    assert.equal(report.issues.numErrors, 0, `gltf-validator: ${JSON.stringify(report.issues.messages.slice(0, 3))}`);
    const { gltf } = await loadWithThree(meshFile);
    const meshes = [];
    gltf.scene.traverse((o) => o.isMesh && meshes.push(o));
    const materials = new Set(readGlb(new Uint8Array(fs.readFileSync(restPath))).json.meshes[0].primitives.map((p) => p.material));
    assert.equal(meshes.length, materials.size, 'one primitive per material');
    const geometry = meshes[0].geometry;
    const restGlb = readGlb(new Uint8Array(fs.readFileSync(restPath))).json;
    const triangles = (j) => j.meshes[0].primitives.reduce((n, p) => n + j.accessors[p.indices].count, 0);
    if (materials.size === 1) assert.equal(geometry.index.count, triangles(restGlb), 'the first mesh holds every triangle');
    const position = geometry.attributes.position;
    const uv1 = geometry.attributes.uv1;
    assert.ok(uv1, 'TEXCOORD_1 reaches three.js as uv1');
    assert.equal(position.count, desc.points + 2);

    const exact = readExr(path.join(dir, `${stem}_pos.exr`), FloatType);
    const half = readExr(path.join(dir, `${stem}_pos.exr`), HalfFloatType);
    const rotExact = readExr(path.join(dir, `${stem}_rot.exr`), FloatType);
    const rotHalf = readExr(path.join(dir, `${stem}_rot.exr`), HalfFloatType);
    const { width, height } = exact;
    assert.equal(height % frames, 0, 'whole bands per frame');
    const scale = Math.max(...desc.positions.center.map((c, a) => Math.abs(c) + desc.positions.half_extent[a]));
    const step = desc.positions.half_extent.map((h) => (2 * h) / 65535); // our 16-bit step per axis
    const p = [0, 0, 0];
    const n = [0, 0, 0];
    const worst = { halfSteps: 0, exact: 0, half: 0, halfOverBound: -Infinity, deg: 0, halfDeg: 0, unflipped: 0, maxOffset: 0 };
    for (let i = 0; i < desc.points; i++) {
      const [u, v1] = [uv1.getX(i), uv1.getY(i)];
      for (let f = 0; f < frames; f++) {
        const s = Math.fround((v1 + Math.fround(f / frames)) * ratio[1]);
        const v = 1 - (s - Math.floor(s));
        const texel = (vv) => {
          const row = Math.min(Math.max(Math.floor(height * vv), 0), height - 1);
          const col = Math.min(Math.max(Math.floor(width * u * ratio[0]), 0), width - 1);
          return (row * width + col) * 4;
        };
        const o = texel(v);
        ours(i, Math.min(f, desc.rows - 1), p, n);
        const rest = [position.getX(i), position.getY(i), position.getZ(i)];
        for (let a = 0; a < 3; a++) {
          const offset = exact.data[o + a];
          worst.maxOffset = Math.max(worst.maxOffset, Math.abs(offset));
          worst.exact = Math.max(worst.exact, Math.abs(rest[a] + offset - p[a]) / scale);
          const e = Math.abs(rest[a] + half.data[o + a] - p[a]);
          worst.half = Math.max(worst.half, e / scale);
          if (step[a] > 0) worst.halfSteps = Math.max(worst.halfSteps, e / step[a]);
          worst.halfOverBound = Math.max(worst.halfOverBound, e - (Math.abs(offset) * 2 ** -10 + 2 ** -24) - 1e-6 * scale);
          // Control: the texel without the HDR flip.
          worst.unflipped = Math.max(worst.unflipped, Math.abs(rest[a] + exact.data[texel(1 - v) + a] - p[a]) / scale);
        }
        const q = [0, 1, 2, 3].map((c) => rotExact.data[o + c]);
        worst.deg = Math.max(worst.deg, degrees(rotateUp(q), n));
        worst.halfDeg = Math.max(worst.halfDeg, degrees(rotateUp([0, 1, 2, 3].map((c) => rotHalf.data[o + c])), n));
      }
    }
    t.diagnostic(
      `${model}: ${desc.points} vertices × ${frames} frames in ${width}×${height}; float: ${worst.exact.toExponential(2)} × max |coordinate|; ` +
        `half: ${worst.half.toExponential(2)} × max |coordinate| = ${worst.halfSteps.toFixed(2)} of our 16-bit steps (largest |offset| ${worst.maxOffset.toPrecision(4)}, bound |offset|·2^-10 = ${(worst.maxOffset * 2 ** -10).toPrecision(3)}); ` +
        `normals ${worst.deg.toFixed(4)}° float, ${worst.halfDeg.toFixed(4)}° half; without the flip ${worst.unflipped.toExponential(2)}`,
    );
    assert.ok(worst.exact <= 1e-6, `float path: a vertex lands ${worst.exact} × max |coordinate| from our decode`);
    assert.ok(worst.halfOverBound <= 0, `half path: a vertex lands ${worst.halfOverBound} beyond |offset| · 2^-10 + 2^-24`);
    // Our normals are octahedral 8 + 8; the quaternion is written from that decode.
    assert.ok(worst.deg <= 0.01, `a float-path normal is ${worst.deg}° from ours`);
    // Half-float truncation moves each quaternion component by < 2^-10 (|q| = 1), the normal by
    // less than 4 · 2^-10 rad = 0.224°.
    assert.ok(worst.halfDeg <= 0.224, `a half-path normal is ${worst.halfDeg}° from ours`);
    if (desc.rows > 1 && height > 1) {
      assert.ok(worst.unflipped > 1e-4, `without the HDR flip the decode is still within ${worst.unflipped}: the check cannot see the orientation`);
    }
  });
}
