// Impostors in node (no WebGL): the frame and view arithmetic the shader repeats, the
// sidecar's cell layout, the patched shaders, and VatCrowd's last level. tests/browser
// draws them in headless Chromium against the VAT mesh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { fromParts, VatCrowd, impostorFromParts, impostorFrame, impostorView, impostorCell, checkImpostor, ImpostorMesh, IMPOSTOR_ALPHA_TEST } from '../src/index.js';
import { bake } from './lib/bake.mjs';

// A sidecar as `vatbake impostor` writes it: clips A (loops, 4 frames) and B (not, 3).
function sidecar() {
  return {
    format: 'vatbake.impostor', format_version: 2,
    description: { file: 'x.vat.json', bytes: 1, sha256: '' },
    cell: 16, columns: 5, width: 80, height: 96,
    views: { azimuths: 8, elevations: [0, 45] },
    pivot: [0, 1, 0], size: 2 * Math.hypot(2, 3, 4), fps: null, motion: 2, frames: 7,
    clips: [{ name: 'A', first_frame: 0, frames: 4, duration: 1, looping: true, fps: 4, motion: 1.5 }, { name: 'B', first_frame: 4, frames: 3, duration: 0.5, looping: false, fps: 4, motion: 0.5 }],
    colour: { file: 'x.impostor.color.ktx2', bytes: 1, sha256: '' },
    normal: { file: 'x.impostor.normal.ktx2', bytes: 1, sha256: '' },
  };
}
const atlas = () => new THREE.DataTexture(new Uint8Array(80 * 96 * 4), 80, 96);

test('impostorFrame: a loop wraps into its first frame, another clip holds its ends', () => {
  const [a, b] = sidecar().clips;
  assert.deepEqual(impostorFrame(a, 0), [0, 1, 0]);
  assert.deepEqual(impostorFrame(a, 0.375), [1, 2, 0.5]);
  assert.deepEqual(impostorFrame(a, 0.875), [3, 0, 0.5], 'the last frame blends into the first');
  assert.deepEqual(impostorFrame(a, 2.125), [0, 1, 0.5]);
  assert.deepEqual(impostorFrame(a, 0.375, false), [2, 3, 0], 'rounded to the nearer frame without interpolation');
  assert.deepEqual(impostorFrame(b, 0.125), [0, 1, 0.5]);
  assert.deepEqual(impostorFrame(b, 9), [2, 2, 0]);
  assert.deepEqual(impostorFrame(b, -1), [0, 1, 0]);
});

test('impostorView: the ring nearest in elevation, the two azimuths around the direction', () => {
  const s = sidecar();
  assert.deepEqual(impostorView(s, { x: 0, y: 0, z: 1 }), { ring: 0, a0: 0, a1: 1, blend: 0 });
  // 22.5° from the front toward +X: halfway between azimuths 0 and 1 (45° apart).
  const half = impostorView(s, { x: Math.sin(Math.PI / 8), y: 0, z: Math.cos(Math.PI / 8) });
  assert.equal(half.a0, 0);
  assert.ok(Math.abs(half.blend - 0.5) < 1e-12);
  // From −X (270°): azimuth 6; 30° up is nearer the 45° ring than the level one.
  const west = impostorView(s, { x: -Math.cos(Math.PI / 6), y: Math.sin(Math.PI / 6), z: 0 });
  assert.deepEqual([west.ring, west.a0, west.a1], [1, 6, 7]);
  assert.ok(Math.abs(west.blend) < 1e-9);
  // Just short of a full turn: azimuth 7 blending into 0.
  const last = impostorView(s, { x: -0.01, y: 0, z: 1 });
  assert.deepEqual([last.a0, last.a1], [7, 0]);
});

test('impostorCell: frame, ring and azimuth to the cell the sidecar lays out', () => {
  const s = sidecar();
  const [, b] = s.clips;
  // B's frame 2 is frame 6 overall; ring 1, azimuth 3: (6 × 2 + 1) × 8 + 3 = 107 → column 2, row 21.
  const { cell, u, v } = impostorCell(s, b, 2, 1, 3);
  assert.equal(cell, 107);
  assert.deepEqual([u, v], [32 / 80, (21 * 16) / 96]);
});

test('impostorFromParts prepares the atlases; a sidecar of another kind is refused', () => {
  const impostor = impostorFromParts(sidecar(), atlas(), atlas());
  assert.equal(impostor.colour.colorSpace, THREE.SRGBColorSpace);
  assert.equal(impostor.normal.colorSpace, THREE.NoColorSpace);
  assert.equal(impostor.colour.flipY, false);
  assert.equal(impostor.gpuBytes, 2 * 80 * 96 * 4);
  assert.throws(() => checkImpostor({ format: 'vatbake.vat', format_version: 1 }), {
    message: 'vatbake: the impostor is not a vatbake.impostor sidecar of format_version 1 or 2',
  });
  const nine = { ...sidecar(), views: { azimuths: 8, elevations: [0, 1, 2, 3, 4, 5, 6, 7, 8] } };
  assert.throws(() => checkImpostor(nine), { message: 'vatbake: the impostor: 9 elevation rings; this player draws 1 to 8' });
});

test('ImpostorMesh: per-unit clip and clock, the billboard and the atlases in the shaders, a shadow through the coverage', () => {
  const mesh = new ImpostorMesh(impostorFromParts(sidecar(), atlas(), atlas()), 3);
  mesh.update(5);
  mesh.setClip(2, 'B', { start: 4, speed: 2 });
  assert.deepEqual(Array.from(mesh.geometry.attributes.impClip.array.subarray(8, 12)), [4, 3, 0.5, 0]);
  assert.deepEqual(Array.from(mesh.geometry.attributes.impPlay.array.subarray(4, 6)), [4, 2]);
  assert.throws(() => mesh.setClip(0, 'C'), { message: 'vatbake: the impostor has no clip "C"; it has A, B' });
  // The patched shaders, from three's own material sources.
  const compile = (material) => {
    const source = THREE.ShaderLib[{ MeshStandardMaterial: 'standard', MeshDepthMaterial: 'depth', MeshDistanceMaterial: 'distance' }[material.type]];
    const shader = { uniforms: {}, vertexShader: source.vertexShader, fragmentShader: source.fragmentShader };
    material.onBeforeCompile(shader);
    return shader;
  };
  const lit = compile(mesh.material);
  assert.ok(lit.vertexShader.includes('vec3 transformed = (inverse(impModel) * vec4(impWorld, 1.0)).xyz;'));
  assert.ok(!lit.vertexShader.includes('#include <begin_vertex>'));
  assert.ok(lit.fragmentShader.includes('diffuseColor *= impTexel;'));
  assert.ok(lit.fragmentShader.includes('normal = normalize(vImpToView * (impSample(impNormal).xyz * 2.0 - 1.0));'));
  assert.equal(lit.uniforms.vatTime, mesh.uniforms.vatTime);
  assert.deepEqual(lit.uniforms.impLayout.value, [5, 16 / 80, 16 / 96, 8]);
  // Each view reprojected through the stored depth (3 steps by default; 0 turns it off).
  assert.ok(lit.fragmentShader.includes('texture2D(atlas, impUv(vImpCorner[1], vImpDelta.y))'));
  assert.equal(lit.uniforms.impParallax.value, 3);
  const flat = new ImpostorMesh(impostorFromParts(sidecar(), atlas(), atlas()), 1, { parallax: 0 });
  assert.equal(flat.uniforms.impParallax.value, 0);
  const depth = compile(mesh.customDepthMaterial);
  assert.ok(depth.fragmentShader.includes('impSample(impColour)'), 'the shadow is cut by the coverage');
  assert.ok(!depth.fragmentShader.includes('impNormal).xyz'));
  assert.equal(mesh.customDepthMaterial.alphaTest, IMPOSTOR_ALPHA_TEST);
  assert.equal(IMPOSTOR_ALPHA_TEST, 0.42);
});

test('VatCrowd: the impostor is the last level, under one texel per pixel by default', () => {
  const { description, gltf, texture } = bake({ levels: 0 });
  const vat = fromParts(description, gltf, texture, { renderer: { extensions: { has: () => false } } });
  const impostor = impostorFromParts(sidecar(), atlas(), atlas());
  const crowd = new VatCrowd(vat, 3, { impostor });
  crowd.castShadow = true;
  // 16-texel cells on a 1080-pixel screen: impostors under 16 / 1080 of the height.
  assert.deepEqual(crowd.thresholds, [Infinity, 16 / 1080]);
  const camera = new THREE.PerspectiveCamera(60, 1, 0.1, 5000);
  // Size on screen at z = −d: 2√29 / (2 × √(d² + 1) × tan 30°) ≈ 9.33 / d: the
  // impostor past d ≈ 630 / 0.9 = 700.
  [50, 1000, 2000].forEach((d, i) => crowd.setMatrixAt(i, new THREE.Matrix4().makeTranslation(0, 0, -d)));
  crowd.setClip(2, 'B', { start: 3, speed: 2 });
  crowd.update(7, camera);
  assert.deepEqual(Array.from(crowd.unitLevels), [0, 1, 1]);
  assert.deepEqual(crowd.levelCounts, [1, 2]);
  assert.equal(crowd.verticesPerFrame, 4 + 2 * 4);
  const quads = crowd.impostor;
  assert.ok(quads instanceof ImpostorMesh);
  assert.deepEqual([quads.count, quads.visible, quads.castShadow], [2, true, true]);
  assert.equal(quads.instanceMatrix.array[16 + 14], -2000);
  assert.deepEqual(Array.from(quads.geometry.attributes.impClip.array.subarray(0, 8)), [0, 4, 1, 1, 4, 3, 0.5, 0]);
  assert.deepEqual(Array.from(quads.geometry.attributes.impPlay.array.subarray(2, 4)), [3, 2]);
  assert.equal(quads.uniforms.vatTime, crowd.units.uniforms.vatTime, 'one clock');
  assert.equal(quads.uniforms.vatTime.value, 7);
  // A crossfade past half shows its second clip.
  crowd.setCrossfade(1, 'B', 0.75, { start: 1, speed: 1 });
  crowd.update(8, camera);
  assert.deepEqual(Array.from(quads.geometry.attributes.impClip.array.subarray(0, 4)), [4, 3, 0.5, 0]);
});
