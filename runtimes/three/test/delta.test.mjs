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

// The layouts in planes, from docs/FORMAT.md's words: R, G, B under the delta, A's two
// bytes each minus the row above's within a clip; per row R, G, B minus the texel `rgb[x]`
// to the left and A's bytes minus the texel `alpha[x]` to the left's ("planes": 1 and 0);
// zigzag; each block of rows as eight byte planes.
function encodePlanes(texels, order, blockRows, refs = { rgb: [0, 1, 1], alpha: [0, 0, 0] }) {
  const out = encode(texels, order);
  const len = width * 4;
  for (let band = 0; band < bands; band++) {
    for (const clip of clips) {
      const top = band * rows + clip.row;
      for (let y = top; y < top + clip.rows; y++) {
        for (let i = y * len + 3; i < (y + 1) * len; i += 4) {
          if (y === top) { out[i] = texels[i]; continue; }
          const a = texels[i], b = texels[i - len];
          out[i] = (((a >> 8) - (b >> 8)) & 0xff) << 8 | ((a - b) & 0xff);
        }
      }
    }
  }
  const zig16 = (v) => { const s = (v << 16) >> 16; return ((s << 1) ^ (s >> 15)) & 0xffff; };
  const zig8 = (v) => { const s = (v << 24) >> 24; return ((s << 1) ^ (s >> 7)) & 0xff; };
  for (let y = 0; y < rows * bands; y++) {
    for (let x = width - 1; x >= 0; x--) {
      const i = (y * width + x) * 4;
      const r = refs.rgb[x], q = refs.alpha[x];
      for (let c = 0; c < 3; c++) out[i + c] = zig16(r ? out[i + c] - out[i + c - 4 * r] : out[i + c]);
      const a = out[i + 3], p = q ? out[i + 3 - 4 * q] : 0;
      out[i + 3] = zig8((a >> 8) - (p >> 8)) << 8 | zig8((a & 0xff) - (p & 0xff));
    }
  }
  const bytes = new Uint8Array(out.length * 2);
  for (let start = 0; start < out.length; start += blockRows * len) {
    const block = out.subarray(start, Math.min(out.length, start + blockRows * len));
    const n = block.length / 4;
    for (let t = 0; t < n; t++) {
      for (let c = 0; c < 4; c++) {
        bytes[start * 2 + 2 * c * n + t] = block[t * 4 + c] >> 8;
        bytes[start * 2 + (2 * c + 1) * n + t] = block[t * 4 + c] & 0xff;
      }
    }
  }
  return new Uint16Array(bytes.buffer);
}

for (const order of [1, 2]) {
  test(`order ${order}, layout "planes" in blocks of 4 rows: the undo gives the plain texels back bit for bit`, () => {
    const original = plain();
    const stored = encodePlanes(original, order, 4);
    const desc = description(order);
    desc.texture.delta = { ...desc.texture.delta, layout: 'planes', block_rows: 4 };
    // The first plane holds R's high bytes: zigzag of small differences, mostly 0 or 0xff.
    assert.notDeepEqual(stored, original);
    // An offset view, as loadVat passes the normal layers.
    const buffer = new Uint16Array(stored.length + 8);
    buffer.set(stored, 8);
    assert.deepEqual(undoDelta(buffer.subarray(8), desc), original);
  });
}

// "planes-ref": column 2 from column 0 (RGB) and from column 1 (the alpha), column 1
// from none and from column 0; the table as a bake writes it, base64 of 2 · width bytes.
for (const order of [1, 2]) {
  test(`order ${order}, layout "planes-ref": the undo follows each column's references back bit for bit`, () => {
    const original = plain();
    const refs = { rgb: [0, 0, 2], alpha: [0, 1, 1] };
    const stored = encodePlanes(original, order, 4, refs);
    const desc = description(order);
    const references = btoa(String.fromCharCode(...refs.rgb, ...refs.alpha));
    assert.equal(references, 'AAACAAEB');
    desc.texture.delta = { ...desc.texture.delta, layout: 'planes-ref', block_rows: 4, references };
    assert.deepEqual(undoDelta(stored.slice(), desc), original);
    // Undone as "planes" (the left neighbour) the same bytes are other texels.
    assert.notDeepEqual(undoDelta(stored.slice(), { ...desc, texture: { ...desc.texture, delta: { ...desc.texture.delta, layout: 'planes' } } }), original);
    const damaged = (references) => ({ ...desc, texture: { ...desc.texture, delta: { ...desc.texture.delta, references } } });
    assert.throws(() => undoDelta(stored.slice(), damaged(undefined)), /"planes-ref" without references/);
    assert.throws(() => undoDelta(stored.slice(), damaged('AAAC')), /holds 3 bytes, a texture 3 texels wide needs 6/);
    assert.throws(() => undoDelta(stored.slice(), damaged(btoa(String.fromCharCode(0, 2, 1, 0, 0, 0)))), /column 1 the reference 2/);
  });
}

test('a bake without a delta is left as it is; unknown orders and wrong sizes are refused', () => {
  const t = plain();
  assert.deepEqual(undoDelta(t.slice(), description(0)), t);
  assert.throws(() => undoDelta(t.slice(), { ...description(2), texture: { ...description(2).texture, delta: { order: 3 } } }), /order 3: this player undoes orders 1 and 2/);
  assert.throws(() => undoDelta(t.slice(), { ...description(2), texture: { ...description(2).texture, delta: { order: 2, layout: 'rows' } } }), /layout "rows": this player undoes "interleaved", "planes" and "planes-ref"/);
  assert.throws(() => undoDelta(t.slice(), { ...description(2), texture: { ...description(2).texture, delta: { order: 2, layout: 'planes' } } }), /without block_rows/);
  assert.throws(() => undoDelta(new Uint16Array(8), description(2)), /8 texel values do not fill 3×14 in bands of 7 rows/);
});
