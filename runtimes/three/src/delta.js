// Undo a bake's `--delta` on load (docs/FORMAT.md, "Delta"): no imports, so a build
// step or a worker can use it alone. loadVat calls it on the texels KTX2Loader gives.

/**
 * Turn the stored texels of a bake made with `--delta row|second` into the texels a
 * shader reads, in place: running sums down each clip's rows, in every band, per u16
 * channel, modulo 65536; for order 2 first from each clip's third row, then from its
 * second. A bake without a delta is left as it is.
 *
 * @param {Uint16Array} texels  level 0 of the KTX2, RGBA, row 0 first
 * @param {object} description  the parsed `*.vat.json`
 * @returns {Uint16Array} the same array
 */
export function undoDelta(texels, description) {
  const delta = description.texture.delta;
  if (!delta) return texels;
  if (delta.order !== 1 && delta.order !== 2) {
    throw new Error(`vatbake: texture.delta of order ${delta.order}: this player undoes orders 1 and 2`);
  }
  const { width, height } = description.texture;
  const rows = description.rows;
  const rowLength = width * 4;
  if (texels.length !== rowLength * height || height % rows !== 0) {
    throw new Error(`vatbake: ${texels.length} texel values do not fill ${width}×${height} in bands of ${rows} rows`);
  }
  for (let j = delta.order; j >= 1; j--) {
    for (let band = 0; band * rows < height; band++) {
      for (const clip of description.clips) {
        const top = band * rows + clip.row;
        for (let y = top + j; y < top + clip.rows; y++) {
          const at = y * rowLength;
          for (let i = at; i < at + rowLength; i++) texels[i] = texels[i] + texels[i - rowLength]; // Uint16Array wraps
        }
      }
    }
  }
  return texels;
}
