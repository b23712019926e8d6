// --delta row|second: the example's undoDelta (runtimes/three/src/delta.js) turns
// the stored texels back into the plain bake's, byte for byte; the file is read here by
// ktx-parse, and tests/browser plays a delta bake through three.js's stock KTX2Loader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { bake, FIXTURES } from './lib/bake.mjs';
import { readDescription, readTexture } from './lib/vat.mjs';
import { undoDelta } from '../../runtimes/three/src/delta.js';

// Kenney's mini character: 4 clips of several lengths; --max-width 1000 wraps it into bands.
const MODEL = path.join(FIXTURES, 'Kenney-MiniCharacters/character-female-a.glb');
const COMMON = ['--max-width', '1000'];

function texelsOf(args) {
  const run = bake(MODEL, [...COMMON, ...args]);
  const { desc, ktx2Path } = readDescription(run.description);
  return { desc, texture: readTexture(ktx2Path), bytes: fs.statSync(ktx2Path).size };
}

test('undoDelta gives the plain bake\'s texels byte for byte', () => {
  const plain = texelsOf(['--delta', 'none']);
  assert.ok(plain.desc.texture.bands > 1, 'bands');
  assert.ok(plain.desc.clips.length > 1, 'clips');
  assert.equal(plain.desc.texture.delta, undefined);
  const untouched = Buffer.from(plain.texture.bytes);
  undoDelta(plain.texture.texels, plain.desc);
  assert.equal(Buffer.compare(Buffer.from(plain.texture.bytes), untouched), 0, 'a plain bake is left as it is');
  for (const [mode, order] of [['row', 1], ['second', 2]]) {
    const d = texelsOf(['--delta', mode]);
    assert.deepEqual([d.desc.texture.delta.mode, d.desc.texture.delta.order], [mode, order]);
    const stored = Buffer.from(d.texture.bytes);
    assert.notEqual(Buffer.compare(stored, untouched), 0, `${mode}: the stored texels differ`);
    undoDelta(d.texture.texels, d.desc);
    assert.equal(Buffer.compare(Buffer.from(d.texture.bytes), untouched), 0, `${mode}: undone, the plain texels`);
    assert.ok(d.bytes < 0.85 * plain.bytes, `${mode}: ${d.bytes} bytes against plain ${plain.bytes}`);
  }
});

// The default bake of the Fox stores "planes-ref" (each column from the column its
// references name): read by ktx-parse, undone by undoDelta, the plain bake's texels.
test('undoDelta gives a "planes-ref" bake\'s plain texels back byte for byte', () => {
  const fox = path.join(FIXTURES, 'Fox/Fox.glb');
  const read = (args) => {
    const { desc, ktx2Path } = readDescription(bake(fox, args).description);
    return { desc, texture: readTexture(ktx2Path) };
  };
  const plain = read(['--delta', 'none']);
  const d = read([]);
  assert.equal(d.desc.texture.delta.layout, 'planes-ref');
  assert.equal(Buffer.from(d.desc.texture.delta.references, 'base64').length, 2 * d.desc.texture.width);
  assert.notEqual(Buffer.compare(Buffer.from(d.texture.bytes), Buffer.from(plain.texture.bytes)), 0);
  undoDelta(d.texture.texels, d.desc);
  assert.equal(Buffer.compare(Buffer.from(d.texture.bytes), Buffer.from(plain.texture.bytes)), 0);
});

test('undoDelta refuses an order it does not know', () => {
  const desc = { rows: 2, clips: [{ row: 0, rows: 2 }], texture: { width: 1, height: 2, delta: { mode: 'third', order: 3 } } };
  assert.throws(() => undoDelta(new Uint16Array(8), desc), /order 3/);
});
