// A 16-bit RGBA PNG reader (PNG spec: IHDR, IDAT inflate, the five row filters), written
// for these checks so that a PNG is read by code other than the Rust `png` crate.
import zlib from 'node:zlib';

/** Returns { width, height, texels: Uint16Array (RGBA, top row first) }. */
export function readPng16(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0) !== 0x89504e47) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat = [];
  while (offset < bytes.length) {
    const length = dv.getUint32(offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = dv.getUint32(offset + 8);
      height = dv.getUint32(offset + 12);
      const [depth, colour, , , interlace] = data.subarray(8, 13);
      if (depth !== 16 || colour !== 6 || interlace !== 0) throw new Error(`PNG is ${depth}-bit colour type ${colour} interlace ${interlace}, not 16-bit RGBA`);
    } else if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const bpp = 8;
  const stride = width * bpp;
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = out.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? out.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? row[i - bpp] : 0;
      const b = up[i];
      const c = i >= bpp ? up[i - bpp] : 0;
      let p;
      if (filter === 0) p = 0;
      else if (filter === 1) p = a;
      else if (filter === 2) p = b;
      else if (filter === 3) p = (a + b) >> 1;
      else if (filter === 4) {
        const e = a + b - c;
        const pa = Math.abs(e - a);
        const pb = Math.abs(e - b);
        const pc = Math.abs(e - c);
        p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else throw new Error(`PNG row ${y}: unknown filter ${filter}`);
      row[i] = (line[i] + p) & 255;
    }
  }
  const texels = new Uint16Array(width * height * 4);
  for (let i = 0; i < texels.length; i++) texels[i] = (out[i * 2] << 8) | out[i * 2 + 1]; // big-endian samples
  return { width, height, texels };
}
