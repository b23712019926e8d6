// Issue 29, "lighter bones": what 16-bit encodings of a bone bake's matrices would cost in
// accuracy, measured before one shipped (the quaternion form is `--bone-encoding quat16`;
// docs/PERFORMANCE.md, "Bone textures in 16 bits"). Each bundled fixture that bakes with --mode bones is
// decoded on the CPU (tests/js/lib/bones.mjs, the formula of docs/FORMAT.md) from its
// RGBA32F matrices and from the same matrices after an encoding, every vertex on every
// row; the worst distance over the diagonal of the decoded positions' box. Encodings:
//   half    every entry as a half float (RGBA16F, 4 texels a joint: 0.5× the bytes);
//   affine  the 3×3 part as signed 16-bit over the bake's largest |entry|, the translation
//           as unsigned 16-bit over the bake's translation box (3 RGBA16 texels: 0.375×);
//   quat    translation as affine, rotation as a signed 16-bit unit quaternion, one
//           uniform scale as 16-bit over the bake's range (2 RGBA16 texels: 0.25×).
// Run from the repo root after `cargo build -p vatbake` and `npm ci --prefix tests/js`:
//   node scripts/bone-precision.mjs
import path from 'node:path';
import { FIXTURES, BUNDLED, bake } from '../tests/js/lib/bake.mjs';
import { readDescription } from '../tests/js/lib/vat.mjs';
import { readFloatTexture, readBoneMesh, makeBoneDecoder } from '../tests/js/lib/bones.mjs';

/** x rounded to the nearest half float (round to nearest even, subnormals included). */
function half(x) {
  if (!Number.isFinite(x) || x === 0) return x;
  const e = Math.max(Math.floor(Math.log2(Math.abs(x))), -14);
  const step = 2 ** (e - 10);
  return Math.round(x / step) * step;
}
const q16 = (v, lo, hi) => (hi > lo ? lo + (Math.round(((v - lo) / (hi - lo)) * 65535) / 65535) * (hi - lo) : v);
const s16 = (v, m) => (m > 0 ? (Math.round((v / m) * 32767) / 32767) * m : v);

/** Every matrix of the texture (16 floats, column-major) through `encode`. */
function encoded(floats, joints, rows, width, encode) {
  const out = new Float32Array(floats);
  for (let r = 0; r < rows; r++) for (let j = 0; j < joints; j++) encode(out, (r * width + j * 4) * 4);
  return out;
}

function stats(floats, joints, rows, width) {
  let maxLinear = 0;
  const tlo = [Infinity, Infinity, Infinity];
  const thi = [-Infinity, -Infinity, -Infinity];
  let slo = Infinity;
  let shi = -Infinity;
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < joints; j++) {
      const o = (r * width + j * 4) * 4;
      for (const c of [0, 1, 2]) for (const k of [0, 1, 2]) maxLinear = Math.max(maxLinear, Math.abs(floats[o + c * 4 + k]));
      for (const k of [0, 1, 2]) {
        tlo[k] = Math.min(tlo[k], floats[o + 12 + k]);
        thi[k] = Math.max(thi[k], floats[o + 12 + k]);
      }
      const s = Math.cbrt(Math.abs(det3(floats, o)));
      slo = Math.min(slo, s);
      shi = Math.max(shi, s);
    }
  }
  return { maxLinear, tlo, thi, slo, shi };
}
const det3 = (m, o) =>
  m[o] * (m[o + 5] * m[o + 10] - m[o + 9] * m[o + 6]) - m[o + 4] * (m[o + 1] * m[o + 10] - m[o + 9] * m[o + 2]) + m[o + 8] * (m[o + 1] * m[o + 6] - m[o + 5] * m[o + 2]);

/** The 3×3 part as uniform scale × rotation quaternion, each 16-bit, and back. */
function quatEncode(s) {
  return (m, o) => {
    const scale = Math.cbrt(det3(m, o));
    const r = (c, k) => m[o + c * 4 + k] / scale; // column c, row k
    const [m00, m11, m22] = [r(0, 0), r(1, 1), r(2, 2)];
    const tr = m00 + m11 + m22;
    let q;
    if (tr > 0) {
      const t = Math.sqrt(tr + 1) * 2;
      q = [(r(1, 2) - r(2, 1)) / t, (r(2, 0) - r(0, 2)) / t, (r(0, 1) - r(1, 0)) / t, 0.25 * t];
    } else if (m00 > m11 && m00 > m22) {
      const t = Math.sqrt(1 + m00 - m11 - m22) * 2;
      q = [0.25 * t, (r(1, 0) + r(0, 1)) / t, (r(2, 0) + r(0, 2)) / t, (r(1, 2) - r(2, 1)) / t];
    } else if (m11 > m22) {
      const t = Math.sqrt(1 + m11 - m00 - m22) * 2;
      q = [(r(1, 0) + r(0, 1)) / t, 0.25 * t, (r(2, 1) + r(1, 2)) / t, (r(2, 0) - r(0, 2)) / t];
    } else {
      const t = Math.sqrt(1 + m22 - m00 - m11) * 2;
      q = [(r(2, 0) + r(0, 2)) / t, (r(2, 1) + r(1, 2)) / t, 0.25 * t, (r(0, 1) - r(1, 0)) / t];
    }
    q = q.map((v) => s16(v, 1));
    const n = Math.hypot(...q);
    const [x, y, z, w] = q.map((v) => v / n);
    const sc = q16(scale, s.slo, s.shi);
    const rot = [
      [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)],
      [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)],
      [2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)],
    ];
    for (const c of [0, 1, 2]) for (const k of [0, 1, 2]) m[o + c * 4 + k] = sc * rot[c][k];
    for (const k of [0, 1, 2]) m[o + 12 + k] = q16(m[o + 12 + k], s.tlo[k], s.thi[k]);
  };
}

console.log('model | joints × rows | half (0.5×) | affine 16-bit (0.375×) | quaternion + scale 16-bit (0.25×) — worst error × diagonal');
for (const model of BUNDLED) {
  let run;
  try {
    run = bake(path.join(FIXTURES, model), ['--mode', 'bones']);
  } catch {
    console.log(`${model} | refused (morph animation)`);
    continue;
  }
  const { desc, ktx2Path, restPath } = readDescription(run.description);
  const { floats } = readFloatTexture(ktx2Path);
  const mesh = readBoneMesh(restPath);
  const { joints } = desc.bones;
  const { rows } = desc;
  const width = desc.texture.width;
  const s = stats(floats, joints, rows, width);
  const reference = makeBoneDecoder(desc, floats, mesh);
  const variants = {
    half: encoded(floats, joints, rows, width, (m, o) => {
      for (let k = 0; k < 16; k++) m[o + k] = half(m[o + k]);
    }),
    affine: encoded(floats, joints, rows, width, (m, o) => {
      for (const c of [0, 1, 2]) for (const k of [0, 1, 2]) m[o + c * 4 + k] = s16(m[o + c * 4 + k], s.maxLinear);
      for (const k of [0, 1, 2]) m[o + 12 + k] = q16(m[o + 12 + k], s.tlo[k], s.thi[k]);
    }),
    quat: encoded(floats, joints, rows, width, quatEncode(s)),
  };
  const a = [0, 0, 0];
  const b = [0, 0, 0];
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  const worst = { half: 0, affine: 0, quat: 0 };
  const decoders = Object.fromEntries(Object.entries(variants).map(([k, f]) => [k, makeBoneDecoder(desc, f, mesh)]));
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < mesh.position.length; i++) {
      reference(i, r, a);
      for (const k of [0, 1, 2]) {
        lo[k] = Math.min(lo[k], a[k]);
        hi[k] = Math.max(hi[k], a[k]);
      }
      for (const [name, decode] of Object.entries(decoders)) {
        decode(i, r, b);
        worst[name] = Math.max(worst[name], Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
      }
    }
  }
  const diagonal = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  const f = (v) => (v / diagonal).toExponential(1);
  console.log(`${model} | ${joints} × ${rows} | ${f(worst.half)} | ${f(worst.affine)} | ${f(worst.quat)}`);
}
