// `--format playcanvas --lods`: the levels played as docs/targets/playcanvas.md says, in
// node with PlayCanvas's own `vat-data.mjs` (the engine's NullGraphicsDevice: no browser
// needed). Each level is an index buffer over the .vat's vertices, listed under `lods` in
// the container's JSON; the page's recipe builds one mesh per level with createVatMesh.
// Every level mesh's triangles must be our `unit.lodN.rest.glb`'s, each vertex mapped to
// its point through its column (TEXCOORD_1), so PlayCanvas's shader (texels at
// gl_VertexID) draws the level from the one texture; the level leaves out the vertices it
// does not use (they are never shaded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as pc from 'playcanvas';
import { parseVat, createVatMesh } from 'playcanvas/scripts/esm/vat/vat-data.mjs';
import { BIN, REPO } from './lib/compare.mjs';
import { readGlb, readAccessor } from '../js/lib/glb.mjs';

/** The GLB's triangles (every primitive, in order) as index triples, and its TEXCOORD_1. */
function glbMesh(file) {
  const { json, bin } = readGlb(new Uint8Array(fs.readFileSync(file)));
  const triangles = [];
  for (const p of json.meshes[0].primitives) {
    const indices = readAccessor(json, [bin], p.indices).map((e) => e[0]);
    for (let i = 0; i < indices.length; i += 3) triangles.push(indices.slice(i, i + 3));
  }
  return { triangles, uv1: readAccessor(json, [bin], json.meshes[0].primitives[0].attributes.TEXCOORD_1) };
}

/** docs/targets/playcanvas.md's recipe: one mesh per level, level 0 first. */
function levelMeshes(device, buffer) {
  const data = parseVat(buffer);
  const view = new DataView(buffer);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 20, jsonLength)));
  const bin = 28 + jsonLength;
  return [createVatMesh(device, data), ...(json.lods ?? []).map(({ indices: a }) => {
    data.indices = new (a.type === 'uint32' ? Uint32Array : Uint16Array)(buffer, bin + a.byteOffset, a.count);
    return createVatMesh(device, data);
  })];
}

test('playcanvas --lods: each level is our level\'s triangles over the .vat\'s vertices, built by the page\'s recipe', (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-pc-lods-'));
  try {
    const args = ['bake', path.join(REPO, 'fixtures', 'Fox', 'Fox.glb'), '-o', out, '-q', '--format', 'playcanvas', '--lods', '0.5,0.25'];
    const run = spawnSync(BIN, args, { encoding: 'utf8' });
    assert.equal(run.status, 0, `${BIN} ${args.join(' ')}: ${run.stderr}`);
    const desc = JSON.parse(fs.readFileSync(path.join(out, 'Fox.vat.json'), 'utf8'));
    const bytes = fs.readFileSync(path.join(out, 'Fox.vat'));
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const device = new pc.NullGraphicsDevice({ width: 1, height: 1, style: {} });
    const meshes = levelMeshes(device, buffer);
    assert.equal(meshes.length, 1 + desc.lods.length);
    // Vertex i of the .vat and of our rest mesh is point i: its column uv names it.
    const rest = glbMesh(path.join(out, desc.mesh.file));
    const pointOf = new Map(rest.uv1.slice(0, desc.points).map((uv, i) => [uv.join(), i]));
    for (const [k, mesh] of meshes.entries()) {
      const ours = k === 0 ? rest : glbMesh(path.join(out, desc.lods[k - 1].file));
      const expected = ours.triangles.map((tri) => tri.map((v) => (k === 0 ? v : pointOf.get(ours.uv1[v].join()))));
      const ib = mesh.indexBuffer[0];
      const indices = Array.from(new (ib.bytesPerIndex === 4 ? Uint32Array : Uint16Array)(ib.storage));
      assert.equal(mesh.primitive[0].count, expected.length * 3, `level ${k}: ${mesh.primitive[0].count} indices, our GLB has ${expected.length} triangles`);
      const got = [];
      for (let i = 0; i < mesh.primitive[0].count; i += 3) got.push(indices.slice(i, i + 3));
      assert.deepEqual(got, expected, `level ${k}: the .vat's triangles are not our level's over the same points`);
      const used = new Set(indices.slice(0, mesh.primitive[0].count)).size;
      t.diagnostic(`level ${k}: ${expected.length} triangles over ${used} of ${desc.points} vertices`);
      if (k > 0) assert.equal(used, desc.lods[k - 1].points, `level ${k} uses ${used} vertices, the description says ${desc.lods[k - 1].points}`);
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
