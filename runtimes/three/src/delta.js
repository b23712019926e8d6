// Undo a bake's `--delta` on load (docs/FORMAT.md, "Delta"): no imports, so a build
// step or a worker can use it alone. loadVat calls it on the texels KTX2Loader gives.

/**
 * Turn the stored texels of a bake made with `--delta row|second` into the texels a
 * shader reads, in place. With `texture.delta.layout` "planes" (the default bake) first
 * the layout: each block of `block_rows` rows from eight byte planes back into RGBA16
 * texels, R, G and B unzigzagged and summed along each row, the alpha's two bytes
 * unzigzagged. Then the delta: running sums down each clip's rows, in every band, per
 * u16 channel, modulo 65536, for order 2 first from each clip's third row, then from
 * its second; with "planes", the alpha's two bytes each by one running sum modulo 256.
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
  if (layout !== 'interleaved' && layout !== 'planes') {
    throw new Error(`vatbake: texture.delta.layout "${layout}": this player undoes "interleaved" and "planes"`);
  }
  const { width, height } = description.texture;
  const rows = description.rows;
  const rowLength = width * 4;
  if (texels.length !== rowLength * height || height % rows !== 0) {
    throw new Error(`vatbake: ${texels.length} texel values do not fill ${width}×${height} in bands of ${rows} rows`);
  }
  const planes = layout === 'planes';
  if (planes) {
    if (!(delta.block_rows > 0)) throw new Error('vatbake: texture.delta.layout "planes" without block_rows: a damaged description?');
    undoPlanes(texels, rowLength, delta.block_rows);
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

/** The "planes" layout undone: per block, bytes back into texels; per row, the steps. */
function undoPlanes(texels, rowLength, blockRows) {
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
  for (let at = 0; at < texels.length; at += rowLength) {
    let r = 0, g = 0, b = 0;
    for (let i = at; i < at + rowLength; i += 4) {
      // Zigzag: (z >> 1) xor -(z & 1); R, G, B then summed along the row, modulo 65536.
      r = (r + ((texels[i] >>> 1) ^ -(texels[i] & 1))) & 0xffff;
      g = (g + ((texels[i + 1] >>> 1) ^ -(texels[i + 1] & 1))) & 0xffff;
      b = (b + ((texels[i + 2] >>> 1) ^ -(texels[i + 2] & 1))) & 0xffff;
      texels[i] = r;
      texels[i + 1] = g;
      texels[i + 2] = b;
      const a = texels[i + 3];
      const hi = a >> 8, lo = a & 0xff;
      texels[i + 3] = (((hi >>> 1) ^ -(hi & 1)) & 0xff) << 8 | (((lo >>> 1) ^ -(lo & 1)) & 0xff);
    }
  }
}
