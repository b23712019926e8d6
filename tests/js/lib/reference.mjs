// The reference other tools' files are checked against: a `--delta none` bake (the texels
// a shader reads, as stored) decoded with lib/vat.mjs (ktx-parse + fzstd and the
// contract's formula), so no code of our own players enters either side of a check.
import assert from 'node:assert/strict';
import path from 'node:path';
import { bake } from './bake.mjs';
import { readDescription, readTexture, makeDecoder } from './vat.mjs';
import { glbAttribute } from './glb.mjs';

/**
 * `vatbake bake <model> --delta none [args]` and our decode of it. Returns the
 * description, its files, the output folder and stem (for the other files a
 * --format writes beside it), the rest mesh's TEXCOORD_1 and `ours(i, row, p, n)`.
 */
export function referenceBake(model, args = []) {
  const run = bake(model, [...args, '--delta', 'none']);
  const { desc, ktx2Path, restPath } = readDescription(run.description);
  assert.equal(desc.texture.delta, undefined, 'the reference texels are stored as a shader reads them');
  const uv1 = glbAttribute(restPath, 'TEXCOORD_1');
  return {
    desc,
    ktx2Path,
    restPath,
    dir: path.dirname(run.description),
    stem: path.basename(run.description).replace(/\.vat\.json$/, ''),
    uv1,
    ours: makeDecoder(desc, readTexture(ktx2Path).texels, uv1),
  };
}
