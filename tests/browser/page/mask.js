// What every page module hands back to node: the drawing buffer of a WebGL context as a
// silhouette mask, top row first, 1 byte per pixel (255 = covered: red channel above
// half, or below half with `dark`), base64-encoded. lib/compare.mjs decodes it.
export function readMask(gl, size, { dark = false } = {}) {
  const rgba = new Uint8Array(size * size * 4);
  gl.readPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
  const mask = new Uint8Array(size * size);
  for (let y = 0; y < size; y++) {
    const src = (size - 1 - y) * size * 4; // readPixels is bottom row first
    for (let x = 0; x < size; x++) mask[y * size + x] = rgba[src + x * 4] > 127 !== dark ? 255 : 0;
  }
  let s = '';
  for (let i = 0; i < mask.length; i += 0x8000) s += String.fromCharCode(...mask.subarray(i, i + 0x8000));
  return btoa(s);
}
