// A bone bake read with other people's code (ktx-parse + fzstd for the texture, our GLB
// accessor reader for the rest mesh) and decoded on the CPU by the formula in
// docs/FORMAT.md ("Bone bakes"): per row, matrix j is texels 4j..4j+3 (its columns);
// a vertex is the weighted sum of its joints' matrices times its bind-space POSITION.
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
  const width = desc.texture.width;
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
