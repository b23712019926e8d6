// Issue 29: does every vertex of a rest GLB land in its own texture column after
// gltfpack? Decodes TEXCOORD_1 of the first primitive (EXT_meshopt_compression with
// meshoptimizer's MeshoptDecoder, the decoder three.js's GLTFLoader is given; plain
// floats or normalized shorts otherwise) and counts vertices whose `u × width` is more
// than 0.25 of a column from a column's centre (docs/PERFORMANCE.md, "Rest mesh
// compression, measured with gltfpack").
//
// Usage (in a scratch folder: npm install gltfpack@1.3.0 meshoptimizer@1.3.0, copy this
// file there):
//   npx gltfpack -i OUT/NAME.rest.glb -o packed.glb -cc -noq -kn -km -kv
//   node rest-uv-columns.mjs WIDTH OUT/NAME.rest.glb packed.glb
// WIDTH: the description's texture.width.
import fs from 'fs';
import { MeshoptDecoder } from 'meshoptimizer';
await MeshoptDecoder.ready;
function glb(path) {
  const b = fs.readFileSync(path);
  const n = b.readUInt32LE(12);
  const json = JSON.parse(b.subarray(20, 20 + n).toString());
  const binLen = b.readUInt32LE(20 + n);
  return { json, bin: b.subarray(28 + n, 28 + n + binLen) };
}
function view(g, i) {
  const v = g.json.bufferViews[i];
  const ext = v.extensions && v.extensions.EXT_meshopt_compression;
  if (!ext) return g.bin.subarray(v.byteOffset || 0, (v.byteOffset || 0) + v.byteLength);
  const out = new Uint8Array(ext.count * ext.byteStride);
  const src = g.bin.subarray(ext.byteOffset || 0, (ext.byteOffset || 0) + ext.byteLength);
  MeshoptDecoder.decodeGltfBuffer(out, ext.count, ext.byteStride, new Uint8Array(src), ext.mode, ext.filter || 'NONE');
  return Buffer.from(out.buffer);
}
function attr(g, name) {
  const p = g.json.meshes[0].primitives[0];
  const a = g.json.accessors[p.attributes[name]];
  const data = view(g, a.bufferView);
  const stride = g.json.bufferViews[a.bufferView].byteStride || (a.componentType === 5126 ? 8 : 4);
  const out = [];
  for (let i = 0; i < a.count; i++) {
    const o = (a.byteOffset || 0) + i * stride;
    if (a.componentType === 5126) out.push([data.readFloatLE(o), data.readFloatLE(o + 4)]);
    else if (a.componentType === 5123) out.push([data.readUInt16LE(o) / (a.normalized ? 65535 : 1), data.readUInt16LE(o + 2) / (a.normalized ? 65535 : 1)]);
    else throw new Error('type ' + a.componentType);
  }
  return out;
}
const width = Number(process.argv[2]);
for (const f of process.argv.slice(3)) {
  const g = glb(f);
  const uv = attr(g, 'TEXCOORD_1');
  let off = 0, worst = 0; const cols = new Set();
  for (const [u] of uv) { const c = u * width; const d = Math.abs(c - Math.floor(c) - 0.5); worst = Math.max(worst, d); if (d > 0.25) off++; cols.add(Math.floor(c)); }
  console.log(f, 'vertices', uv.length, 'distinct columns', cols.size, 'off-centre >0.25 col', off, 'worst', worst.toFixed(3), 'u range', Math.min(...uv.map(x=>x[0])).toFixed(5), Math.max(...uv.map(x=>x[0])).toFixed(5));
}
