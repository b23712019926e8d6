// Read vatbake's output with other people's code: ktx-parse for the KTX2 container and
// fzstd for the Zstandard supercompression. The decode formulas are the contract's.
import fs from 'node:fs';
import path from 'node:path';
import { read as readKtx2 } from 'ktx-parse';
import { decompress } from 'fzstd';

/** Load the description and return it with absolute paths to its files. */
export function readDescription(descriptionFile) {
  const desc = JSON.parse(fs.readFileSync(descriptionFile, 'utf8'));
  const dir = path.dirname(descriptionFile);
  return { desc, ktx2Path: path.join(dir, desc.texture.file), restPath: path.join(dir, desc.mesh.file) };
}

/** Parse the KTX2 and return { container, texels } with texels the level-0 u16 data. */
export function readTexture(ktx2Path) {
  const container = readKtx2(new Uint8Array(fs.readFileSync(ktx2Path)));
  const level = container.levels[0];
  let raw = level.levelData;
  if (container.supercompressionScheme === 2) raw = decompress(raw);
  else if (container.supercompressionScheme !== 0) throw new Error(`unexpected supercompression ${container.supercompressionScheme}`);
  if (raw.byteLength !== level.uncompressedByteLength) {
    throw new Error(`level 0 inflates to ${raw.byteLength} bytes, header says ${level.uncompressedByteLength}`);
  }
  // Copy so the u16 view is aligned; KTX2 data is little-endian, as is every host we run on.
  const copy = new Uint8Array(raw);
  return { container, bytes: copy, texels: new Uint16Array(copy.buffer, 0, copy.byteLength / 2) };
}

/**
 * Decode point i at global row r: world position and octahedral normal.
 * Texel x = i % width, y = floor(i / width) * rows + r, top row first, RGBA u16.
 */
export function makeDecoder(desc, texels, uv1) {
  const { width, height } = desc.texture;
  const [cx, cy, cz] = desc.positions.center;
  const [hx, hy, hz] = desc.positions.half_extent;
  // Vertex i reads the texel its TEXCOORD_1 addresses, as a shader does: column
  // floor(u · width), band top round(v · height), plus the row.
  const xs = uv1.map(([u]) => Math.floor(u * width));
  const tops = uv1.map(([, v]) => Math.round(v * height));
  return function decode(i, r, outPos, outNor) {
    const x = xs[i];
    const y = tops[i] + r;
    const o = (y * width + x) * 4;
    outPos[0] = (texels[o] / 65535) * 2 - 1;
    outPos[1] = (texels[o + 1] / 65535) * 2 - 1;
    outPos[2] = (texels[o + 2] / 65535) * 2 - 1;
    outPos[0] = outPos[0] * hx + cx;
    outPos[1] = outPos[1] * hy + cy;
    outPos[2] = outPos[2] * hz + cz;
    if (outNor) octDecode(texels[o + 3], outNor);
  };
}

/** Octahedral 8+8 normal in one u16 (high byte = x, low byte = y), per the contract. */
export function octDecode(a, out) {
  let ox = ((a >> 8) / 255) * 2 - 1;
  let oy = ((a & 255) / 255) * 2 - 1;
  let nz = 1 - Math.abs(ox) - Math.abs(oy);
  if (nz < 0) {
    const sx = ox >= 0 ? 1 : -1;
    const sy = oy >= 0 ? 1 : -1;
    [ox, oy] = [(1 - Math.abs(oy)) * sx, (1 - Math.abs(ox)) * sy];
  }
  const len = Math.hypot(ox, oy, nz);
  out[0] = ox / len;
  out[1] = oy / len;
  out[2] = nz / len;
  return out;
}

/** The column each point's TEXCOORD_1 addresses: band · width + floor(u · width). */
export function restColumns(desc, uv1) {
  const { width, height } = desc.texture;
  return uv1.slice(0, desc.points).map(([u, v]) => Math.round((v * height) / desc.rows) * width + Math.floor(u * width));
}
