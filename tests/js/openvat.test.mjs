// --format openvat: the remap JSON, the 16-bit PNGs and the mesh decoded with the formula
// of OpenVAT's own Godot shader (sharpen3d/openvat, OpenVAT-Engine_Tools/GLSL/
// VertexAnimationPBR-GLSL.gdshader): texel at UV2 + (0, frame / height), nearest;
// offset = Min + tex · (Max − Min) in Blender's axes; the vertex moves to
// rest + (offset.x, offset.z, −offset.y). Every point on every row must land within half
// an OpenVAT 16-bit step of our own decode of the bake's KTX2; the normals PNG, (n + 1) / 2
// in the same axes, within 0.01° of our decoded normal. "Our decode" reads a --delta none
// bake's KTX2 as stored (ktx-parse + fzstd), so no code of our players enters it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES, BUNDLED } from './lib/bake.mjs';
import { referenceBake } from './lib/reference.mjs';
import { glbAttribute as attribute } from './lib/glb.mjs';
import { readPng16 } from './lib/png16.mjs';

for (const model of BUNDLED) {
  test(`openvat: ${model} decodes with OpenVAT's shader formula onto our positions`, (t) => {
    // --max-width 1000 wraps the bigger models into bands, as OpenVAT's own layout does.
    const { desc, dir, stem, ours } = referenceBake(path.join(FIXTURES, model), ['--format', 'openvat', '--max-width', '1000']);
    assert.equal(desc.settings.format, 'openvat');

    const remap = JSON.parse(fs.readFileSync(path.join(dir, `${stem}-remap_info.json`), 'utf8'))['os-remap'];
    assert.equal(remap.Frames, desc.rows);
    const image = readPng16(new Uint8Array(fs.readFileSync(path.join(dir, `${stem}.png`))));
    const normalsImage = readPng16(new Uint8Array(fs.readFileSync(path.join(dir, `${stem}-vnrm.png`))));
    assert.deepEqual([image.width, image.height], [desc.texture.width, desc.texture.height]);
    assert.deepEqual([normalsImage.width, normalsImage.height], [image.width, image.height]);
    const meshFile = path.join(dir, `${stem}-mesh.glb`);
    const rest = attribute(meshFile, 'POSITION');
    const uv2 = attribute(meshFile, 'TEXCOORD_1');
    const [min, max] = [remap.Min, remap.Max];
    // One OpenVAT step per engine axis: engine x, y, z are Blender x, z, −y.
    const step = [0, 2, 1].map((b) => (max[b] - min[b]) / 65535);
    const scale = Math.max(...desc.positions.center.map((c, a) => Math.abs(c) + desc.positions.half_extent[a]));
    const p = [0, 0, 0];
    const n = [0, 0, 0];
    let worst = 0;
    let worstDeg = 0;
    let unswapped = 0; // control: the offsets added without the Blender-to-engine swizzle
    for (let i = 0; i < desc.points; i++) {
      for (let f = 0; f < desc.rows; f++) {
        const u = uv2[i][0];
        const v = uv2[i][1] + f / image.height;
        const o = (Math.floor(v * image.height) * image.width + Math.floor(u * image.width)) * 4;
        const off = [0, 1, 2].map((b) => min[b] + (image.texels[o + b] / 65535) * (max[b] - min[b]));
        const engine = [rest[i][0] + off[0], rest[i][1] + off[2], rest[i][2] - off[1]];
        ours(i, f, p, n);
        for (let a = 0; a < 3; a++) unswapped = Math.max(unswapped, Math.abs(rest[i][a] + off[a] - p[a]) / scale);
        for (let a = 0; a < 3; a++) {
          const e = Math.abs(engine[a] - p[a]) - 0.5 * step[a];
          worst = Math.max(worst, e / scale);
        }
        const nb = [0, 1, 2].map((b) => (normalsImage.texels[o + b] / 65535) * 2 - 1);
        const ne = [nb[0], nb[2], -nb[1]];
        const dot = (ne[0] * n[0] + ne[1] * n[1] + ne[2] * n[2]) / Math.hypot(...ne);
        worstDeg = Math.max(worstDeg, (Math.acos(Math.min(1, dot)) * 180) / Math.PI);
      }
    }
    t.diagnostic(`${model}: ${desc.points} points × ${desc.rows} rows; beyond half a step: ${worst.toExponential(2)} × max |coordinate|; normals ${worstDeg.toFixed(4)}°`);
    // Half a step, plus float32 rounding of the rest position and the Min/Max (a few ulps).
    assert.ok(worst <= 1e-6, `a point lands ${worst} × max |coordinate| beyond half an OpenVAT step from our decode`);
    assert.ok(worstDeg <= 0.01, `a normal is ${worstDeg}° from ours`);
    assert.ok(unswapped > 1e-3, `without the axis swap the decode is still within ${unswapped}: the check cannot see an axis error`);
  });
}

// --lods with --format openvat: each level's `<stem>-lodN-mesh.glb` is our level's points,
// each vertex's VAT_UV the one OpenVAT's full mesh gives that point, so OpenVAT's formula
// on the one PNG plays the level: every level vertex on every row lands where our decode
// puts its point.
test('openvat --lods: each level mesh plays from the same PNG with OpenVAT\'s formula', (t) => {
  const { desc, dir, stem, ours, uv1: ourFull } = referenceBake(path.join(FIXTURES, 'Fox/Fox.glb'), ['--format', 'openvat', '--lods', '0.5,0.25']);
  assert.equal(desc.lods.length, 2);
  const remap = JSON.parse(fs.readFileSync(path.join(dir, `${stem}-remap_info.json`), 'utf8'))['os-remap'];
  const image = readPng16(new Uint8Array(fs.readFileSync(path.join(dir, `${stem}.png`))));
  const fullUv = attribute(path.join(dir, `${stem}-mesh.glb`), 'TEXCOORD_1');
  // Our rest mesh's column uv names each point: vertex i is point i.
  const pointOf = new Map(ourFull.slice(0, desc.points).map((uv, i) => [uv.join(), i]));
  const [min, max] = [remap.Min, remap.Max];
  const step = [0, 2, 1].map((b) => (max[b] - min[b]) / 65535);
  const scale = Math.max(...desc.positions.center.map((c, a) => Math.abs(c) + desc.positions.half_extent[a]));
  const p = [0, 0, 0];
  const n = [0, 0, 0];
  for (const [k, lod] of desc.lods.entries()) {
    const file = `${stem}-lod${k + 1}-mesh.glb`;
    assert.ok(desc.exports.some((e) => e.file === file), `${file} is recorded in the description's exports`);
    const uv2 = attribute(path.join(dir, file), 'TEXCOORD_1');
    const rest = attribute(path.join(dir, file), 'POSITION');
    const ourLevel = attribute(path.join(dir, lod.file), 'TEXCOORD_1');
    let worst = 0;
    for (let i = 0; i < lod.points; i++) {
      const point = pointOf.get(ourLevel[i].join());
      assert.ok(point !== undefined, `level ${k + 1} vertex ${i}: its column is no point of the bake`);
      assert.deepEqual(uv2[i], fullUv[point], `level ${k + 1} vertex ${i}: VAT_UV is not its point's in ${stem}-mesh.glb`);
      for (let f = 0; f < desc.rows; f++) {
        const o = (Math.floor((uv2[i][1] + f / image.height) * image.height) * image.width + Math.floor(uv2[i][0] * image.width)) * 4;
        const off = [0, 1, 2].map((b) => min[b] + (image.texels[o + b] / 65535) * (max[b] - min[b]));
        const engine = [rest[i][0] + off[0], rest[i][1] + off[2], rest[i][2] - off[1]];
        ours(point, f, p, n);
        for (let a = 0; a < 3; a++) worst = Math.max(worst, (Math.abs(engine[a] - p[a]) - 0.5 * step[a]) / scale);
      }
    }
    t.diagnostic(`level ${k + 1}: ${lod.points} of ${desc.points} points × ${desc.rows} rows; beyond half a step: ${worst.toExponential(2)} × max |coordinate|`);
    assert.ok(worst <= 1e-6, `level ${k + 1}: a vertex lands ${worst} × max |coordinate| beyond half an OpenVAT step from our decode`);
  }
});
