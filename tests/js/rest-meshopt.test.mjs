// `--rest-mesh meshopt`: the rest GLB under EXT_meshopt_compression (normals as
// KHR_mesh_quantization 16-bit integers). The fixture suite plays it like the plain rest
// mesh (its readRestGlb decodes the views with three.js's MeshoptDecoder; the validator,
// the column and rest-pose checks and every row against three.js); below, three.js's
// GLTFLoader reads it and gets the plain mesh's geometry back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fixtureSuite } from './lib/suite.mjs';
import { bake, FIXTURES } from './lib/bake.mjs';
import { readDescription } from './lib/vat.mjs';
import { loadWithThree } from './lib/three-source.mjs';

fixtureSuite({ model: 'Fox/Fox.glb', args: ['--rest-mesh', 'meshopt'] });
fixtureSuite({ model: 'Kenney-MiniCharacters/character-female-a.glb', args: ['--rest-mesh', 'meshopt'] });

/** The geometries of a GLB as three.js's GLTFLoader (with MeshoptDecoder) gives them. */
async function geometries(file) {
  const { gltf } = await loadWithThree(file);
  const out = [];
  gltf.scene.traverse((o) => {
    if (o.isMesh) out.push(o.geometry);
  });
  return out;
}

/** Each triangle rotated to start at its lowest index (same winding), in order. */
function triangles(indices) {
  const out = [];
  for (let i = 0; i < indices.length; i += 3) {
    const t = [indices[i], indices[i + 1], indices[i + 2]];
    const first = t.indexOf(Math.min(...t));
    out.push([0, 1, 2].map((k) => t[(first + k) % 3]).join(','));
  }
  return out;
}

for (const model of ['Fox/Fox.glb', 'Kenney-MiniCharacters/character-female-a.glb']) {
  test(`${model}: GLTFLoader reads the meshopt rest mesh as the plain one`, async (t) => {
    const plain = readDescription(bake(path.join(FIXTURES, model)).description);
    const packed = readDescription(bake(path.join(FIXTURES, model), ['--rest-mesh', 'meshopt']).description);
    assert.equal(packed.desc.settings.rest_mesh, 'meshopt', 'settings.rest_mesh');
    assert.equal(plain.desc.settings.rest_mesh, undefined, 'the plain default is not written');
    const [a, b] = [fs.statSync(plain.restPath).size, fs.statSync(packed.restPath).size];
    t.diagnostic(`${model}: rest GLB ${a} -> ${b} bytes (${(b / a).toFixed(3)}x)`);
    assert.ok(b < a, `the meshopt rest GLB (${b} bytes) is smaller than the plain one (${a})`);
    const [ga, gb] = [await geometries(plain.restPath), await geometries(packed.restPath)];
    assert.equal(gb.length, ga.length, 'meshes');
    let worstNormal = 0;
    let worstUv = 0;
    for (let m = 0; m < ga.length; m++) {
      const [x, y] = [ga[m], gb[m]];
      // The index codec may start a triangle at another corner; the winding stays.
      assert.deepEqual(triangles(y.index.array), triangles(x.index.array), `mesh ${m}: the same triangles in order`);
      // Positions and the column uv are stored as the same floats: equal to the bit.
      for (const name of ['position', 'uv1']) {
        assert.deepEqual(Array.from(y.attributes[name].array), Array.from(x.attributes[name].array), `mesh ${m}: ${name}`);
      }
      // Normals as 16-bit integers: under 0.002°; the material's uvs within 1/131070.
      const [na, nb] = [x.attributes.normal, y.attributes.normal];
      for (let i = 0; i < na.count; i++) {
        const dot = na.getX(i) * nb.getX(i) + na.getY(i) * nb.getY(i) + na.getZ(i) * nb.getZ(i);
        const len = Math.hypot(nb.getX(i), nb.getY(i), nb.getZ(i)) * Math.hypot(na.getX(i), na.getY(i), na.getZ(i));
        worstNormal = Math.max(worstNormal, (Math.acos(Math.min(1, dot / len)) * 180) / Math.PI);
      }
      const [ua, ub] = [x.attributes.uv, y.attributes.uv];
      for (let i = 0; i < ua.count; i++) {
        worstUv = Math.max(worstUv, Math.abs(ua.getX(i) - ub.getX(i)), Math.abs(ua.getY(i) - ub.getY(i)));
      }
    }
    t.diagnostic(`${model}: normals within ${worstNormal.toFixed(5)}°, material uvs within ${worstUv.toExponential(3)}`);
    assert.ok(worstNormal <= 0.002, `normals turned by ${worstNormal}°`);
    assert.ok(worstUv <= 1 / 131070 + 1e-9, `material uvs moved by ${worstUv}`);
  });
}
