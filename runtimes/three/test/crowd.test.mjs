// VatCrowd in node (no WebGL): levels of detail loaded with the bake, each unit bucketed
// into the level its projected size allows, with hysteresis; the texture, materials and
// clock shared. tests/browser draws a crowd in headless Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { fromParts, VatCrowd, lodThresholds, chooseLevel } from '../src/index.js';
import { bake } from './lib/bake.mjs';

const noNorm16 = { extensions: { has: () => false } };

test('lodThresholds: the recorded screen fractions, or at a tolerance and screen height of the caller', () => {
  const { description } = bake();
  const [t0, t1, t2] = lodThresholds(description.lods);
  assert.equal(t0, Infinity);
  assert.ok(Math.abs(t1 - 1 / 10.8) < 1e-12 && Math.abs(t2 - 1 / 43.2) < 1e-12, `${t1} ${t2}`);
  // 2 px on a 2160-px screen: the same fractions (twice the pixels, twice the screen).
  assert.deepEqual(lodThresholds(description.lods, { pixels: 2, screenHeight: 2160 }), [Infinity, t1, t2]);
  // A coarser level measured with less error is not shown larger than the finer one.
  const odd = [description.lods[0], { ...description.lods[1], max_error_fraction: 0.005 }];
  assert.deepEqual(lodThresholds(odd), [Infinity, t1, t1]);
});

test('chooseLevel: coarser only a margin below the threshold, finer at the threshold', () => {
  const t = [Infinity, 0.1, 0.02];
  assert.equal(chooseLevel(t, 0.5, 0, 0.1), 0);
  assert.equal(chooseLevel(t, 0.095, 0, 0.1), 0, 'under level 1 threshold but inside the margin: stays finer');
  assert.equal(chooseLevel(t, 0.089, 0, 0.1), 1);
  assert.equal(chooseLevel(t, 0.095, 1, 0.1), 1, 'the same size keeps level 1');
  assert.equal(chooseLevel(t, 0.1, 1, 0.1), 0, 'at the threshold: back to finer');
  assert.equal(chooseLevel(t, 0.001, 0, 0.1), 2, 'straight to the coarsest');
  assert.equal(chooseLevel(t, 0.019, 2, 0.1), 2);
  assert.equal(chooseLevel(t, 0.019, 1, 0.1), 1);
  assert.equal(chooseLevel(t, 0.5, 2, 0.1), 0);
});

test('fromParts loads the levels beside the rest mesh; a partial list is refused', () => {
  const b = bake();
  const vat = fromParts(b.description, b.gltf, b.texture, { renderer: noNorm16, lods: b.lodGltfs });
  assert.deepEqual(vat.lods.map((l) => [l.level, l.points, l.geometry.index.count]), [[1, 3, 3], [2, 2, 3]]);
  assert.deepEqual(vat.lods[1].geometry.boundingBox.min.toArray(), [-2, -2, -4], 'a level has the baked bounds too');
  const c = bake();
  assert.throws(() => fromParts(c.description, c.gltf, c.texture, { renderer: noNorm16, lods: c.lodGltfs.slice(0, 1) }), {
    message: 'vatbake: 1 level-of-detail GLBs given, the description lists 2 (x.lod1.rest.glb, x.lod2.rest.glb): give all of them, in its order, or none',
  });
  const d = bake();
  assert.deepEqual(fromParts(d.description, d.gltf, d.texture, { renderer: noNorm16 }).lods, [], 'none asked: none loaded');
});

test('VatCrowd: each unit at its level by screen size, one draw per level, texture, materials and clock shared', () => {
  const b = bake();
  const vat = fromParts(b.description, b.gltf, b.texture, { renderer: noNorm16, lods: b.lodGltfs });
  const crowd = new VatCrowd(vat, 5);
  crowd.castShadow = true;
  const camera = new THREE.PerspectiveCamera(60, 1, 0.1, 5000);
  // Size on screen of a unit at z = −d: 2√29 / (2 × √(d² + 1) × tan 30°) ≈ 9.33 / d.
  // Level 1 below 1/10.8 (d > 101), coarser only below 0.9 of it (d > 112); level 2
  // below 1/43.2 (d > 403), coarser below 0.9 of it (d > 448).
  const place = (i, d) => crowd.setMatrixAt(i, new THREE.Matrix4().makeTranslation(0, 0, -d));
  [50, 200, 1000, 105, 430].forEach((d, i) => place(i, d));
  crowd.setClip(2, 'B', { start: 3, speed: 2 });
  crowd.update(7, camera);
  assert.deepEqual(Array.from(crowd.unitLevels), [0, 1, 2, 0, 1]);
  assert.deepEqual(crowd.levelCounts, [2, 2, 1]);
  assert.deepEqual(crowd.levels.map((l) => [l.count, l.visible]), [[2, true], [2, true], [1, true]]);
  assert.equal(crowd.verticesPerFrame, 2 * 4 + 2 * 3 + 1 * 2);
  // Unit 2 is level 2's first instance: its matrix and its clip B.
  const level2 = crowd.levels[2];
  assert.equal(level2.instanceMatrix.array[14], -1000);
  assert.deepEqual(Array.from(level2.geometry.attributes.vatClipA.array.subarray(0, 4)), [0, 2, 2, 0]);
  assert.deepEqual(Array.from(level2.geometry.attributes.vatPlay.array.subarray(0, 2)), [3, 2]);
  assert.equal(level2.geometry.attributes.vatClipA.needsUpdate, undefined, 'needsUpdate is a setter: version bumped instead');
  assert.ok(level2.geometry.attributes.vatClipA.version > 0);
  // One texture, one set of materials, one clock; shadows drawn per level.
  for (const level of crowd.levels) {
    assert.equal(level.material, crowd.levels[0].material);
    assert.equal(level.uniforms, crowd.units.uniforms);
    assert.equal(level.customDepthMaterial, crowd.units.customDepthMaterial);
    assert.equal(level.castShadow, true);
  }
  assert.equal(crowd.levels[1].uniforms.vatTexture.value, vat.texture);
  assert.equal(crowd.levels[2].uniforms.vatTime.value, 7);
  assert.equal(crowd.levels[1].geometry.index.count, 3, 'level 1 draws its own triangles');

  // Hysteresis: unit 1 comes to 105 (under level 1's threshold, inside the margin): it
  // keeps level 1, while unit 3 at the same distance stays at level 0.
  place(1, 105);
  crowd.update(7.1, camera);
  assert.deepEqual(Array.from(crowd.unitLevels), [0, 1, 2, 0, 1]);
  place(1, 95);
  place(3, 120);
  crowd.update(7.2, camera);
  assert.deepEqual(Array.from(crowd.unitLevels), [0, 0, 2, 1, 1], 'finer at the threshold, coarser past the margin');
  // A crossfade compiles into the shared materials, so every level blends.
  crowd.setCrossfade(0, 'B', 0.5);
  assert.equal(crowd.levels[2].material[0].defines.VAT_CROSSFADE, '');
  assert.equal(crowd.levels[2].customDepthMaterial.defines.VAT_CROSSFADE, '');
  // maxLevel caps the chain; an orthographic camera uses the view's height.
  crowd.maxLevel = 1;
  crowd.update(8, camera);
  assert.deepEqual(crowd.levelCounts, [2, 3, 0]);
  assert.equal(crowd.levels[2].visible, false);
  crowd.maxLevel = Infinity;
  const ortho = new THREE.OrthographicCamera(-500, 500, 500, -500);
  crowd.update(8, ortho);
  // 2√29 / 1000 ≈ 0.0108: under level 2's 0.9 × 0.0231 for every unit.
  assert.deepEqual(crowd.levelCounts, [0, 0, 5]);
});

test('VatCrowd without levels draws every unit at level 0', () => {
  const b = bake();
  const vat = fromParts(b.description, b.gltf, b.texture, { renderer: noNorm16 });
  const crowd = new VatCrowd(vat, 2);
  crowd.setMatrixAt(1, new THREE.Matrix4().makeTranslation(0, 0, -4000));
  crowd.update(1, new THREE.PerspectiveCamera(60, 1, 0.1, 5000));
  assert.deepEqual(crowd.levelCounts, [2]);
  assert.equal(crowd.verticesPerFrame, 8);
});
