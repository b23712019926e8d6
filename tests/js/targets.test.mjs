// --target: each engine's EXR read with three.js's own EXRLoader (an independent OpenEXR
// reader), addressed the way that engine's glTF importer leaves the rest mesh's
// TEXCOORD_1 (Unity's importers turn v into 1 − v and Unity's v = 0 is the image's bottom;
// Godot and Unreal keep glTF's v, origin at the top), decoded with the description's
// target.center / half_extent, and converted back with the inverse of target.axes_from_gltf
// and target.scale, must land on the positions of a --target three bake within half a
// 16-bit step; normals within the octahedral code's own error. Babylon and PlayCanvas keep
// glTF's object space: their record points at the bake's own KTX2, the same bytes as three's.
// The positions to land on are a --delta none three bake's texels as stored (ktx-parse +
// fzstd); the KTX2 bytes compared are the default (delta) bakes'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EXRLoader } from 'three/examples/jsm/loaders/EXRLoader.js';
import { FloatType } from 'three';
import { bake, FIXTURES, BUNDLED } from './lib/bake.mjs';
import { readDescription, octDecode } from './lib/vat.mjs';
import { referenceBake } from './lib/reference.mjs';

/** Engine axes back to glTF's: engine axis i is ±glTF axis named in words[i], times scale. */
function toGltf(words, scale, e) {
  const out = [0, 0, 0];
  words.forEach((w, i) => {
    out['xyz'.indexOf(w[1])] = ((w[0] === '-' ? -1 : 1) * e[i]) / scale;
  });
  return out;
}

for (const model of BUNDLED) {
  test(`targets: ${model} in every engine's space lands on the three target's positions`, (t) => {
    const three = bake(path.join(FIXTURES, model), ['--target', 'three', '--max-width', '1000']);
    const ref = referenceBake(path.join(FIXTURES, model), ['--target', 'three', '--max-width', '1000']);
    assert.equal(ref.desc.target, undefined, 'no target record for three');
    const { uv1, ours } = ref;
    const step = ref.desc.positions.half_extent.map((h) => (2 * h) / 65535);
    // A flat axis (SimpleSkin's z: half_extent 0) has no step: its error is measured in
    // model units there, beyond zero, and must be float noise all the same.
    const unit = step.map((s) => s || 1);
    const { width, height } = ref.desc.texture;
    const ktx2Bytes = fs.readFileSync(readDescription(three.description).ktx2Path);

    for (const target of ['babylon', 'playcanvas', 'godot', 'unity', 'unreal']) {
      const run = bake(path.join(FIXTURES, model), ['--target', target, '--max-width', '1000']);
      const { desc, ktx2Path } = readDescription(run.description);
      const rec = desc.target;
      assert.equal(rec.name, target);
      assert.deepEqual(fs.readFileSync(ktx2Path), ktx2Bytes, `${target}: the bake's own KTX2 is three's`);
      if (rec.container !== 'exr') {
        assert.equal(rec.texture, desc.texture.file);
        assert.deepEqual(rec.axes_from_gltf, ['+x', '+y', '+z']);
        assert.deepEqual(rec.center, ref.desc.positions.center);
        continue;
      }
      const bytes = fs.readFileSync(path.join(path.dirname(run.description), rec.texture));
      const loader = new EXRLoader();
      loader.setDataType(FloatType);
      const exr = loader.parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      assert.deepEqual([exr.width, exr.height], [width, height]);
      // EXRLoader hands rows bottom-up (data row 0 is v = 0 in OpenGL's convention).
      const texel = (u, vBottom) => (Math.floor(vBottom * height) * width + Math.floor(u * width)) * 4;
      const p = [0, 0, 0];
      const n = [0, 0, 0];
      const m = [0, 0, 0];
      let worst = 0; // beyond half a step, in steps
      let worstDeg = 0;
      let unconverted = 0; // control: engine-space numbers taken as glTF's
      for (let i = 0; i < desc.points; i++) {
        for (let f = 0; f < desc.rows; f++) {
          // The importer's TEXCOORD_1, then the row offset in the engine's own v direction.
          const u = uv1[i][0];
          const vBottom =
            rec.uv_origin === 'bottom'
              ? 1 - uv1[i][1] - (f + 0.5) / height // Unity: v' = 1 − v, rows go down
              : 1 - (uv1[i][1] + (f + 0.5) / height); // top origin: image row, flipped to EXRLoader's
          const o = texel(u, vBottom);
          const rgba = [0, 1, 2, 3].map((c) => exr.data[o + c]);
          const engine = [0, 1, 2].map((a) => (rgba[a] * 2 - 1) * rec.half_extent[a] + rec.center[a]);
          const back = toGltf(rec.axes_from_gltf, rec.scale, engine);
          ours(i, f, p, n);
          for (let a = 0; a < 3; a++) {
            worst = Math.max(worst, (Math.abs(back[a] - p[a]) - 0.5 * step[a]) / unit[a]);
            unconverted = Math.max(unconverted, Math.abs(engine[a] - p[a]));
          }
          octDecode(Math.round(rgba[3] * 65535), m);
          const nb = toGltf(rec.axes_from_gltf, 1, m);
          const dot = (nb[0] * n[0] + nb[1] * n[1] + nb[2] * n[2]) / Math.hypot(...nb) / Math.hypot(...n);
          worstDeg = Math.max(worstDeg, (Math.acos(Math.min(1, dot)) * 180) / Math.PI);
        }
      }
      t.diagnostic(
        `${model} ${target}: ${desc.points} points × ${desc.rows} rows; beyond half a step: ${worst.toExponential(2)} steps; normals ${worstDeg.toFixed(3)}°; unconverted ${unconverted.toExponential(2)}`,
      );
      assert.ok(worst <= 1e-3, `${target}: a point lands ${worst} steps beyond half a 16-bit step`);
      assert.ok(worstDeg <= 1.0, `${target}: a normal is ${worstDeg}° from three's`);
      if (target !== 'godot') assert.ok(unconverted > 1e-3, `${target}: engine space equals glTF's (${unconverted}): the check is blind`);
    }
  });
}
