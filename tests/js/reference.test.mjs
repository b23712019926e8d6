// Checks of the reference side alone (no vatbake needed): that three.js in node sees the
// fixtures as their README describes, and that the contract's normal decoder is sane.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { FIXTURES } from './lib/bake.mjs';
import { octDecode } from './lib/vat.mjs';
import { loadWithThree, pointRanges, captureRest, poser, worldPoints } from './lib/three-source.mjs';

// Point counts from fixtures/README.md.
const POINTS = {
  'Fox/Fox.glb': 1728,
  'Fox/gltfpack/Fox.meshopt.glb': 434,
  'SimpleSkin/SimpleSkin.gltf': 10,
  'RiggedSimple/rigged-simple.gltf': 160,
  'CesiumMan/glTF-Binary/CesiumMan.glb': 3273,
  'MorphStressTest/MorphStressTest.gltf': 1528,
  'AnimatedMorphCube/AnimatedMorphCube.gltf': 24,
  'Kenney-MiniCharacters/character-female-a.glb': 1576,
  'Kenney-PlatformerCharacter/character.glb': 1038,
};

for (const [model, points] of Object.entries(POINTS)) {
  test(`three.js loads ${model} in node: ${points} points in contract order`, async () => {
    const { gltf, json } = await loadWithThree(path.join(FIXTURES, model));
    assert.equal(pointRanges(gltf, json).points, points);
  });
}

// The packed Fox (meshopt + 16-bit quantized positions, welded to 434 points) is the same
// animal: through three's MeshoptDecoder its Survey clip must sweep the same box as
// Fox.glb's, which shows the reference handles quantized, compressed input.
test('three.js: Fox.meshopt.glb moves like Fox.glb', async () => {
  const box = async (model) => {
    const { gltf, json } = await loadWithThree(path.join(FIXTURES, model));
    const { ranges, points, scene } = pointRanges(gltf, json);
    const pose = poser(scene, captureRest(scene));
    const lo = [Infinity, Infinity, Infinity];
    const hi = [-Infinity, -Infinity, -Infinity];
    for (let k = 0; k <= 30; k++) {
      pose([gltf.animations[0]], k / 10);
      const { pos } = worldPoints(ranges, points);
      for (let i = 0; i < pos.length; i++) [lo[i % 3], hi[i % 3]] = [Math.min(lo[i % 3], pos[i]), Math.max(hi[i % 3], pos[i])];
    }
    return [...lo, ...hi];
  };
  const [plain, packed] = [await box('Fox/Fox.glb'), await box('Fox/gltfpack/Fox.meshopt.glb')];
  // gltfpack quantizes positions to ~0.01 units on a 200-unit fox.
  plain.forEach((v, i) => assert.ok(Math.abs(v - packed[i]) < 0.05, `bound ${i}: ${v} vs ${packed[i]}`));
});

test('octahedral decode follows the contract', () => {
  const n = new Float64Array(3);
  const near = (a, b) => a.every((v, i) => Math.abs(v - b[i]) < 0.01);
  // Centre of the square is +z; corners of the folded half are -z.
  assert.ok(near(octDecode((128 << 8) | 128, n), [0, 0, 1]), `+z: ${[...n]}`);
  assert.ok(near(octDecode((255 << 8) | 128, n), [1, 0, 0]), `+x: ${[...n]}`);
  assert.ok(near(octDecode((128 << 8) | 0, n), [0, -1, 0]), `-y: ${[...n]}`);
  assert.ok(near(octDecode(0xffff, n), [0, 0, -1]), `-z: ${[...n]}`);
  assert.ok(near(octDecode(0x0000, n), [0, 0, -1]), `-z: ${[...n]}`);
  assert.ok(Math.abs(Math.hypot(...octDecode(0x1234, n)) - 1) < 1e-12, 'unit length');
});
