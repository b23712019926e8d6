// undoDelta (src/delta.js) against an encoder written here from docs/FORMAT.md ("Delta"):
// two bands, two clips, both orders, u16 wrap-around; the undo must give the texels back
// bit for bit. (tests/js/delta.test.mjs checks it on real bakes against --delta none.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { undoDelta } from '../src/delta.js';

const width = 3;
const clips = [{ row: 0, rows: 4 }, { row: 4, rows: 3 }];
const rows = 7;
const bands = 2;
const description = (order) => ({ rows, clips, texture: { width, height: rows * bands, delta: order ? { mode: order === 1 ? 'row' : 'second', order } : undefined } });

function plain() {
  const t = new Uint16Array(width * rows * bands * 4);
  let s = 12345;
  for (let i = 0; i < t.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    t[i] = i % 5 === 0 ? 65535 - (s & 7) : s >>> 16; // near the top too: sums must wrap
  }
  return t;
}

function encode(texels, order) {
  const out = texels.slice();
  const len = width * 4;
  for (let j = 1; j <= order; j++) {
    for (let band = 0; band < bands; band++) {
      for (const clip of clips) {
        const top = band * rows + clip.row;
        for (let y = top + clip.rows - 1; y >= top + j; y--) {
          for (let i = y * len; i < (y + 1) * len; i++) out[i] = out[i] - out[i - len];
        }
      }
    }
  }
  return out;
}

for (const order of [1, 2]) {
  test(`order ${order}: the undo gives the plain texels back bit for bit`, () => {
    const original = plain();
    const stored = encode(original, order);
    assert.notDeepEqual(stored, original);
    assert.deepEqual(undoDelta(stored, description(order)), original);
  });
}

test('a bake without a delta is left as it is; unknown orders and wrong sizes are refused', () => {
  const t = plain();
  assert.deepEqual(undoDelta(t.slice(), description(0)), t);
  assert.throws(() => undoDelta(t.slice(), { ...description(2), texture: { ...description(2).texture, delta: { order: 3 } } }), /order 3: this player undoes orders 1 and 2/);
  assert.throws(() => undoDelta(new Uint16Array(8), description(2)), /8 texel values do not fill 3×14 in bands of 7 rows/);
});
