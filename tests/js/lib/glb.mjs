// Minimal GLB container reading/writing (glTF 2.0 §4.4) and raw accessor reading.
// Written for these checks; it deliberately knows nothing about vatbake.
import fs from 'node:fs';

const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a; // "JSON"
const CHUNK_BIN = 0x004e4942; // "BIN\0"

/** True when the bytes start with the GLB magic. */
export function isGlb(bytes) {
  return bytes.length >= 12 && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true) === GLB_MAGIC;
}

/** Split a GLB into its parsed JSON and its BIN chunk (or null). */
export function readGlb(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== GLB_MAGIC) throw new Error('not a GLB file');
  const total = dv.getUint32(8, true);
  let offset = 12;
  let json = null;
  let bin = null;
  while (offset + 8 <= total) {
    const length = dv.getUint32(offset, true);
    const type = dv.getUint32(offset + 4, true);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (type === CHUNK_JSON) json = JSON.parse(new TextDecoder().decode(data));
    else if (type === CHUNK_BIN && bin === null) bin = data;
    offset += 8 + length;
  }
  if (json === null) throw new Error('GLB has no JSON chunk');
  return { json, bin };
}

/** Build a GLB from a JSON object and an optional BIN chunk; returns an ArrayBuffer. */
export function writeGlb(json, bin) {
  const pad4 = (n) => (n + 3) & ~3;
  const jsonBytes = new TextEncoder().encode(JSON.stringify(json));
  const jsonLen = pad4(jsonBytes.length);
  const binLen = bin ? pad4(bin.length) : 0;
  const total = 12 + 8 + jsonLen + (bin ? 8 + binLen : 0);
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, GLB_MAGIC, true);
  dv.setUint32(4, 2, true);
  dv.setUint32(8, total, true);
  dv.setUint32(12, jsonLen, true);
  dv.setUint32(16, CHUNK_JSON, true);
  out.fill(0x20, 20, 20 + jsonLen); // JSON chunk is padded with spaces
  out.set(jsonBytes, 20);
  if (bin) {
    const o = 20 + jsonLen;
    dv.setUint32(o, binLen, true);
    dv.setUint32(o + 4, CHUNK_BIN, true);
    out.set(bin, o + 8); // BIN chunk is padded with zeros
  }
  return out.buffer;
}

const COMPONENTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const READERS = {
  5120: [1, (dv, o) => dv.getInt8(o), 127],
  5121: [1, (dv, o) => dv.getUint8(o), 255],
  5122: [2, (dv, o) => dv.getInt16(o, true), 32767],
  5123: [2, (dv, o) => dv.getUint16(o, true), 65535],
  5125: [4, (dv, o) => dv.getUint32(o, true), 4294967295],
  5126: [4, (dv, o) => dv.getFloat32(o, true), 1],
};

/**
 * Read a (non-sparse) accessor into an array of arrays, one per element.
 * `buffers` holds the bytes of each glTF buffer. Normalized integers are mapped to floats.
 */
export function readAccessor(json, buffers, accessorIndex) {
  const acc = json.accessors[accessorIndex];
  if (acc.sparse) throw new Error('sparse accessors are not supported by this reader');
  const n = COMPONENTS[acc.type];
  const [size, read, max] = READERS[acc.componentType];
  const view = json.bufferViews[acc.bufferView];
  const buf = buffers[view.buffer];
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const stride = view.byteStride || n * size;
  const base = (view.byteOffset || 0) + (acc.byteOffset || 0);
  const out = [];
  for (let i = 0; i < acc.count; i++) {
    const el = [];
    for (let c = 0; c < n; c++) {
      let v = read(dv, base + i * stride + c * size);
      if (acc.normalized && acc.componentType !== 5126) v = acc.componentType % 2 === 0 ? Math.max(v / max, -1) : v / max;
      el.push(v);
    }
    out.push(el);
  }
  return out;
}

/** The first primitive's attribute `name` (e.g. 'POSITION', 'TEXCOORD_1') of a GLB file, one array per vertex. */
export function glbAttribute(file, name) {
  const { json, bin } = readGlb(new Uint8Array(fs.readFileSync(file)));
  return readAccessor(json, [bin], json.meshes[0].primitives[0].attributes[name]);
}
