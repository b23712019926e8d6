// A bone bake read with other people's code (ktx-parse + fzstd for the texture, our GLB
// accessor reader for the rest mesh) and decoded on the CPU by the formula in
// docs/FORMAT.md ("Bone bakes"): per row, matrix j is texels 4j..4j+3 (its columns);
// a vertex is the weighted sum of its joints' matrices times its bind-space POSITION.
// A "quat16" texture (--bone-encoding quat16) is rebuilt into the same float matrices by
// the words of the description's `bones.decode` (readQuat16Matrices).
import fs from 'node:fs';
import { read as readKtx2 } from 'ktx-parse';
import { decompress } from 'fzstd';
import { readGlb, readAccessor } from './glb.mjs';

/** The KTX2 container and its level 0 as f32 texels. */
export function readFloatTexture(ktx2Path) {
  const container = readKtx2(new Uint8Array(fs.readFileSync(ktx2Path)));
  const level = container.levels[0];
  let raw = level.levelData;
  if (container.supercompressionScheme === 2) raw = decompress(raw);
  if (raw.byteLength !== level.uncompressedByteLength) {
    throw new Error(`level 0 inflates to ${raw.byteLength} bytes, header says ${level.uncompressedByteLength}`);
  }
  const copy = new Uint8Array(raw);
  return { container, bytes: copy, floats: new Float32Array(copy.buffer, 0, copy.byteLength / 4) };
}

/** The rest mesh's vertices: POSITION, NORMAL and every JOINTS_n/WEIGHTS_n set, plus the skin. */
export function readBoneMesh(restPath) {
  const { json, bin } = readGlb(new Uint8Array(fs.readFileSync(restPath)));
  const attributes = json.meshes[0].primitives[0].attributes;
  for (const primitive of json.meshes[0].primitives) {
    if (JSON.stringify(primitive.attributes) !== JSON.stringify(attributes)) throw new Error('primitives do not share one vertex set');
  }
  const read = (name) => (attributes[name] === undefined ? null : readAccessor(json, [bin], attributes[name]));
  const sets = [];
  for (let s = 0; attributes[`JOINTS_${s}`] !== undefined; s++) sets.push({ joints: read(`JOINTS_${s}`), weights: read(`WEIGHTS_${s}`) });
  return { json, position: read('POSITION'), normal: read('NORMAL'), sets };
}

/**
 * decode(i, row, out): vertex i skinned by row `row`'s matrices, with every weight set
 * (or only the first `maxSets`). Matrices are column-major, 16 floats from texel 4j.
 */
export function makeBoneDecoder(desc, floats, mesh, maxSets = Infinity) {
  const width = desc.bones.joints * 4; // float texels a row, whatever the texture's encoding

  const sets = mesh.sets.slice(0, maxSets);
  return function decode(i, row, out) {
    const [x, y, z] = mesh.position[i];
    out[0] = out[1] = out[2] = 0;
    for (const { joints, weights } of sets) {
      for (let c = 0; c < 4; c++) {
        const w = weights[i][c];
        if (w === 0) continue;
        const o = (row * width + joints[i][c] * 4) * 4;
        const m = floats;
        out[0] += w * (m[o] * x + m[o + 4] * y + m[o + 8] * z + m[o + 12]);
        out[1] += w * (m[o + 1] * x + m[o + 5] * y + m[o + 9] * z + m[o + 13]);
        out[2] += w * (m[o + 2] * x + m[o + 6] * y + m[o + 10] * z + m[o + 14]);
      }
    }
    return out;
  };
}

/**
 * A quat16 bone texture (R16G16B16A16_UNORM, 2 texels a joint) as the float matrices it
 * stands for, 16 floats a joint column-major like readFloatTexture's: per joint, v = c / 65535;
 * translation = min + v.rgb × (max − min), scale = scale_min + v.a × (scale_max − scale_min);
 * quaternion = v × 2 − 1 of the next texel, normalized; matrix = T · R · s.
 */
export function readQuat16Matrices(ktx2Path, desc) {
  const container = readKtx2(new Uint8Array(fs.readFileSync(ktx2Path)));
  const level = container.levels[0];
  let raw = level.levelData;
  if (container.supercompressionScheme === 2) raw = decompress(raw);
  const copy = new Uint8Array(raw);
  const codes = new Uint16Array(copy.buffer, 0, copy.byteLength / 2);
  const { translation_min: lo, translation_max: hi, scale_min: s0, scale_max: s1 } = desc.bones.quantization;
  const count = codes.length / 8;
  const floats = new Float32Array(count * 16);
  for (let j = 0; j < count; j++) {
    const c = codes.subarray(j * 8, j * 8 + 8);
    const v = (k) => c[k] / 65535;
    const t = [0, 1, 2].map((k) => lo[k] + v(k) * (hi[k] - lo[k]));
    const s = s0 + v(3) * (s1 - s0);
    let [x, y, z, w] = [4, 5, 6, 7].map((k) => v(k) * 2 - 1);
    const n = Math.hypot(x, y, z, w);
    [x, y, z, w] = [x / n, y / n, z / n, w / n];
    const m = floats.subarray(j * 16, j * 16 + 16);
    m.set([
      s * (1 - 2 * (y * y + z * z)), s * 2 * (x * y + z * w), s * 2 * (x * z - y * w), 0,
      s * 2 * (x * y - z * w), s * (1 - 2 * (x * x + z * z)), s * 2 * (y * z + x * w), 0,
      s * 2 * (x * z + y * w), s * 2 * (y * z - x * w), s * (1 - 2 * (x * x + y * y)), 0,
      t[0], t[1], t[2], 1,
    ]);
  }
  return { container, codes, floats };
}
