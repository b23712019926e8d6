// Undo a bake's `--delta` on load (docs/FORMAT.md, "Delta"): no imports, so a build
// step or a worker can use it alone. loadVat calls it on the texels KTX2Loader gives.

/**
 * Turn the stored texels of a bake made with `--delta row|second` into the texels a
 * shader reads, in place. With `texture.delta.layout` "planes" or "planes-ref" (the
 * default bake's layouts) first the layout: each block of `block_rows` rows from eight
 * byte planes back into RGBA16 texels, R, G and B unzigzagged and each plus those of
 * the column to its left ("planes") or the column `texture.delta.references` names
 * ("planes-ref"), the alpha's two bytes unzigzagged (and, with "planes-ref", plus those
 * of their reference column, modulo 256). Then the delta: running sums down each clip's
 * rows, in every band, per u16 channel, modulo 65536, for order 2 first from each clip's
 * third row, then from its second; in planes, the alpha's two bytes each by one running
 * sum modulo 256.
 * A bake without a delta is left as it is.
 *
 * @param {Uint16Array} texels  one image of level 0 of the KTX2 (the positions, or the
 *   normal layers), RGBA, row 0 first, `texture.height` rows
 * @param {object} description  the parsed `*.vat.json`
 * @returns {Uint16Array} the same array
 */
export function undoDelta(texels, description) {
  const delta = description.texture.delta;
  if (!delta) return texels;
  if (delta.order !== 1 && delta.order !== 2) {
    throw new Error(`vatbake: texture.delta of order ${delta.order}: this player undoes orders 1 and 2`);
  }
  const layout = delta.layout ?? 'interleaved';
  if (layout !== 'interleaved' && layout !== 'planes' && layout !== 'planes-ref') {
    throw new Error(`vatbake: texture.delta.layout "${layout}": this player undoes "interleaved", "planes" and "planes-ref"`);
  }
  const { width, height } = description.texture;
  const rows = description.rows;
  const rowLength = width * 4;
  if (texels.length !== rowLength * height || height % rows !== 0) {
    throw new Error(`vatbake: ${texels.length} texel values do not fill ${width}×${height} in bands of ${rows} rows`);
  }
  const planes = layout !== 'interleaved';
  if (planes) {
    if (!(delta.block_rows > 0)) throw new Error(`vatbake: texture.delta.layout "${layout}" without block_rows: a damaged description?`);
    undoPlanes(texels, rowLength, delta.block_rows, references(delta, layout, width));
  }
  for (let j = delta.order; j >= 1; j--) {
    for (let band = 0; band * rows < height; band++) {
      for (const clip of description.clips) {
        const top = band * rows + clip.row;
        for (let y = top + j; y < top + clip.rows; y++) {
          const at = y * rowLength;
          if (!planes) {
            for (let i = at; i < at + rowLength; i++) texels[i] = texels[i] + texels[i - rowLength]; // Uint16Array wraps
            continue;
          }
          for (let i = at; i < at + rowLength; i += 4) {
            texels[i] = texels[i] + texels[i - rowLength];
            texels[i + 1] = texels[i + 1] + texels[i + 1 - rowLength];
            texels[i + 2] = texels[i + 2] + texels[i + 2 - rowLength];
            if (j === 1) {
              const a = texels[i + 3];
              const b = texels[i + 3 - rowLength];
              texels[i + 3] = (((a >> 8) + (b >> 8)) & 0xff) << 8 | ((a + b) & 0xff);
            }
          }
        }
      }
    }
  }
  return texels;
}

/**
 * Each column's references: how many columns to its left R, G and B (`rgb`) and the
 * alpha's two bytes (`alpha`) are predicted from, 0 for none. "planes": R, G and B from
 * the column to the left, the alpha from none; "planes-ref": `texture.delta.references`,
 * base64 of `2 * width` bytes, `rgb` then `alpha`.
 */
function references(delta, layout, width) {
  if (layout === 'planes') {
    const rgb = new Uint8Array(width).fill(1);
    rgb[0] = 0;
    return { rgb, alpha: new Uint8Array(width) };
  }
  if (typeof delta.references !== 'string') throw new Error('vatbake: texture.delta.layout "planes-ref" without references: a damaged description?');
  const text = atob(delta.references);
  if (text.length !== 2 * width) throw new Error(`vatbake: texture.delta.references holds ${text.length} bytes, a texture ${width} texels wide needs ${2 * width}`);
  const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] > i % width) throw new Error(`vatbake: texture.delta.references gives column ${i % width} the reference ${bytes[i]}, past the texture's first column`);
  }
  return { rgb: bytes.subarray(0, width), alpha: bytes.subarray(width) };
}

/** A layout in planes undone: per block, bytes back into texels; per row, the steps. */
function undoPlanes(texels, rowLength, blockRows, refs) {
  const bytes = new Uint8Array(texels.buffer, texels.byteOffset, texels.byteLength);
  const blockLength = rowLength * blockRows * 2;
  const scratch = new Uint8Array(Math.min(blockLength, bytes.length));
  for (let start = 0; start < bytes.length; start += blockLength) {
    const length = Math.min(blockLength, bytes.length - start);
    const n = length >> 3; // texels in the block
    scratch.set(bytes.subarray(start, start + length));
    for (let c = 0; c < 4; c++) {
      const high = scratch.subarray(2 * c * n, (2 * c + 1) * n);
      const low = scratch.subarray((2 * c + 1) * n, (2 * c + 2) * n);
      let at = (start >> 1) + c;
      for (let i = 0; i < n; i++, at += 4) texels[at] = high[i] << 8 | low[i];
    }
  }
  const { rgb, alpha } = refs;
  for (let at = 0; at < texels.length; at += rowLength) {
    for (let i = at, x = 0; i < at + rowLength; i += 4, x++) {
      // Zigzag: (z >> 1) xor -(z & 1); then R, G, B plus those of the texel `rgb[x]` to
      // the left, modulo 65536 (a Uint16Array wraps), the alpha's bytes plus those of
      // the texel `alpha[x]` to the left, modulo 256.
      let r = (texels[i] >>> 1) ^ -(texels[i] & 1);
      let g = (texels[i + 1] >>> 1) ^ -(texels[i + 1] & 1);
      let b = (texels[i + 2] >>> 1) ^ -(texels[i + 2] & 1);
      const a = texels[i + 3];
      let hi = ((a >> 8) >>> 1) ^ -((a >> 8) & 1);
      let lo = ((a & 0xff) >>> 1) ^ -(a & 1);
      const k = rgb[x];
      if (k > 0) {
        const j = i - 4 * k;
        r += texels[j];
        g += texels[j + 1];
        b += texels[j + 2];
      }
      const q = alpha[x];
      if (q > 0) {
        const p = texels[i - 4 * q + 3];
        hi += p >> 8;
        lo += p;
      }
      texels[i] = r;
      texels[i + 1] = g;
      texels[i + 2] = b;
      texels[i + 3] = (hi & 0xff) << 8 | (lo & 0xff);
    }
  }
}
