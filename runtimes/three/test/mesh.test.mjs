// fromParts, VatMesh and the shader patch in node (no WebGL: what can be checked without
// drawing; tests/browser draws it in headless Chromium against three.js's own playback).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { fromParts, VatMesh, patchMaterial, VAT_GLSL, checkDescription } from '../src/index.js';

// A bake of 2 points × 5 rows: clip "A" rows 0–2 (loops), clip "B" rows 3–4.
function bake({ delta = false } = {}) {
  const description = {
    format: 'vatbake.vat', format_version: 1, points: 2, rows: 5,
    texture: { file: 'x.vat.ktx2', container: 'ktx2', vk_format: 91, width: 2, height: 5, bands: 1, ...(delta ? { delta: { mode: 'row', order: 1 } } : {}) },
    positions: { center: [0, 1, 0], half_extent: [2, 3, 4] },
    normals: { channel: 'a', encoding: 'octahedral_8_8' },
    mesh: { file: 'x.rest.glb', points: 2 },
    clips: [
      { name: 'A', row: 0, rows: 3, rate: 2, duration: 1, loop: true },
      { name: 'B', row: 3, rows: 2, rate: 4, duration: 0.25, loop: false },
    ],
  };
  const texels = new Uint16Array(2 * 5 * 4).map((_, i) => 1000 + i);
  if (delta) for (let y = 2; y >= 1; y--) for (let i = y * 8; i < y * 8 + 8; i++) texels[i] -= texels[i - 8];
  const texture = new THREE.DataTexture(texels, 2, 5, THREE.RGBAFormat, THREE.UnsignedShortType);
  const geometry = new THREE.BufferGeometry();
  // Two points and the two bounds corners the rest GLB adds; the rest box is inside the bounds.
  geometry.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0, 1, 1, 1, -2, -2, -4, 2, 4, 4], 3));
  geometry.setAttribute('normal', new THREE.Float32BufferAttribute([0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0], 3));
  geometry.setAttribute('uv1', new THREE.Float32BufferAttribute([0.25, 0, 0.75, 0, 0, 0, 0, 0], 2));
  geometry.setIndex([0, 1, 0]);
  const scene = new THREE.Group().add(new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({ color: 0xff8800 })));
  return { description, texture, gltf: { scene } };
}
const noNorm16 = { extensions: { has: () => false } };

test('fromParts: integer upload without EXT_texture_norm16, delta undone, bounds cover the baked bounds', () => {
  const { description, texture, gltf } = bake({ delta: true });
  const vat = fromParts(description, gltf, texture, { renderer: noNorm16 });
  assert.equal(vat.path, 'integer');
  assert.equal(texture.internalFormat, 'RGBA16UI');
  assert.equal(texture.format, THREE.RGBAIntegerFormat);
  assert.equal(texture.magFilter, THREE.NearestFilter);
  assert.deepEqual(Array.from(texture.image.data.subarray(16, 20)), [1016, 1017, 1018, 1019], 'row 2 restored by the undo');
  assert.deepEqual(vat.geometry.boundingBox.min.toArray(), [-2, -2, -4]);
  assert.deepEqual(vat.geometry.boundingBox.max.toArray(), [2, 4, 4]);
  assert.ok(Math.abs(vat.geometry.boundingSphere.radius - Math.hypot(2, 3, 4)) < 1e-12);
  assert.deepEqual(vat.clips.map((c) => c.name), ['A', 'B']);
});

test('fromParts refuses a texture of another size, norm16 without the extension, and a PNG bake', () => {
  const { description, gltf } = bake();
  const wrong = new THREE.DataTexture(new Uint16Array(3 * 5 * 4), 3, 5, THREE.RGBAFormat, THREE.UnsignedShortType);
  assert.throws(() => fromParts(description, gltf, wrong, { renderer: noNorm16 }), { message: 'vatbake: the KTX2 is 3×5 (15 texels), the description says 2×5: a texture from another bake?' });
  const b = bake();
  assert.throws(() => fromParts(b.description, b.gltf, b.texture, { renderer: noNorm16, path: 'norm16' }), /needs EXT_texture_norm16/);
  assert.throws(() => checkDescription({ ...description, texture: { ...description.texture, container: 'png' } }, 'u.vat.json'), { message: 'vatbake: u.vat.json: the texture is png; bake the default KTX2 for the web' });
  assert.throws(() => checkDescription({ format: 'other' }, 'u.vat.json'), /not a vatbake.vat format_version 1 description/);
});

test('VatMesh: per-instance clip, start, speed and crossfade as the shader reads them', () => {
  const { description, texture, gltf } = bake();
  const vat = fromParts(description, gltf, texture, { renderer: noNorm16 });
  const mesh = new VatMesh(vat, 3);
  assert.equal(mesh.count, 3);
  assert.equal(mesh.material[0].defines.VAT_CROSSFADE, undefined, 'no clip-B sampling until a crossfade is set');
  const at = (name, i) => Array.from(mesh.geometry.attributes[name].array.subarray(i * mesh.geometry.attributes[name].itemSize, (i + 1) * mesh.geometry.attributes[name].itemSize));
  assert.deepEqual(at('vatClipA', 2), [0, 3, 2, 1], 'every unit starts on the first clip');
  mesh.update(10);
  mesh.setClip(1, 'B', { start: 9.5, speed: 0.5 });
  mesh.setCrossfade(1, 'A', 0.5, { start: 8 });
  assert.equal(mesh.material[0].defines.VAT_CROSSFADE, '');
  assert.equal(mesh.customDepthMaterial.defines.VAT_CROSSFADE, '', 'the shadow blends too');
  assert.deepEqual(at('vatClipA', 1), [3, 2, 4, 0]);
  assert.deepEqual(at('vatClipB', 1), [0, 3, 2, 1]);
  assert.deepEqual(at('vatPlay', 1), [9.5, 0.5, 8, 1]);
  assert.deepEqual(at('vatWeight', 1), [0.5]);
  // B: local (10 − 9.5) × 0.5 = 0.25 s × 4 rows/s = row 1 of B = texture row 4 (held).
  // A: local 2 s × 2 rows/s = 4 → wraps over 2 intervals to row 0.
  const s = mesh.state(1);
  assert.deepEqual([s.a.clip.name, s.a.localTime, s.a.row0, s.a.row1, s.a.f], ['B', 0.25, 4, 4, 0]);
  assert.deepEqual([s.b.clip.name, s.b.localTime, s.b.row0, s.b.row1, s.b.f], ['A', 2, 0, 1, 0]);
  const t = mesh.state(1, 10.3); // A at 2.3 s: frame 4.6 → 0.6: rows 0 and 1, f 0.6
  assert.ok(Math.abs(t.b.f - 0.6) < 1e-9 && t.b.row0 === 0 && t.b.row1 === 1);
  mesh.setClip(1, 'A');
  assert.deepEqual(at('vatWeight', 1), [0], 'setClip ends the crossfade');
  assert.deepEqual(at('vatPlay', 1).slice(0, 2), [10, 1], 'default start: now');
  assert.throws(() => mesh.setClip(0, 'Jump'), { message: 'vatbake: no clip "Jump" (have: A, B)' });
});

test('VatMesh: materials patched, depth and distance materials displaced, nearest-row switch', () => {
  const { description, texture, gltf } = bake();
  const vat = fromParts(description, gltf, texture, { renderer: noNorm16 });
  const mesh = new VatMesh(vat, 1);
  const compile = (material, lib) => {
    const shader = { vertexShader: THREE.ShaderLib[lib].vertexShader, fragmentShader: '', uniforms: {} };
    material.onBeforeCompile(shader);
    return shader;
  };
  const standard = compile(mesh.material[0], 'standard');
  assert.ok(standard.vertexShader.includes(VAT_GLSL));
  assert.match(standard.vertexShader, /#include <begin_vertex>\n\ttransformed = vatPosition;/);
  assert.match(standard.vertexShader, /#include <beginnormal_vertex>\n\tobjectNormal = vatNormal;/);
  assert.equal(standard.uniforms.vatTexture.value, texture, 'the bake\'s texture, shared');
  assert.equal(standard.uniforms.vatTime, mesh.uniforms.vatTime, 'the clock is shared by reference');
  assert.equal(mesh.material[0].color.getHex(), 0xff8800, 'a clone of the rest GLB\'s own material');
  for (const [material, lib] of [[mesh.customDepthMaterial, 'depth'], [mesh.customDistanceMaterial, 'distance']]) {
    const s = compile(material, lib);
    assert.match(s.vertexShader, /transformed = vatPosition;/, `${lib}: displaced`);
    assert.doesNotMatch(s.vertexShader, /objectNormal = vatNormal/, `${lib}: no normal needed`);
  }
  assert.equal(mesh.material[0].defines.VAT_NEAREST, undefined);
  mesh.interpolate = false;
  assert.equal(mesh.material[0].defines.VAT_NEAREST, '');
  assert.equal(mesh.customDepthMaterial.defines.VAT_NEAREST, '');
  const again = compile(mesh.material[0], 'standard').vertexShader;
  assert.equal(again.split('void vatSample(').length - 1, 1, 'a second patch replaces the first');
  const points = patchMaterial(new THREE.PointsMaterial(), mesh.uniforms);
  assert.throws(() => points.onBeforeCompile({ vertexShader: 'void main() {}', uniforms: {} }), /no "#include <common>" to patch/);
});

test('VatMesh: moving a unit invalidates the bounds three culls with', () => {
  const { description, texture, gltf } = bake();
  const mesh = new VatMesh(fromParts(description, gltf, texture, { renderer: noNorm16 }), 2);
  mesh.computeBoundingSphere();
  const before = mesh.boundingSphere.radius;
  mesh.setMatrixAt(1, new THREE.Matrix4().makeTranslation(100, 0, 0));
  assert.equal(mesh.boundingSphere, null);
  mesh.computeBoundingSphere();
  assert.ok(mesh.boundingSphere.radius > before + 40, `radius ${mesh.boundingSphere.radius} covers the moved unit`);
});

test('array layers: the KTX2\'s layers become one DataArrayTexture, the delta undone across layer borders', () => {
  // 2 points × 5 rows in layers of 3 rows: logical rows 0–2 in layer 0, 3–4 in layer 1 (+1 padding row).
  const { description, gltf } = bake({ delta: true });
  description.texture = { ...description.texture, layers: 2, layer_height: 3 };
  description.normals = { mode: 'none' };
  const texels = new Uint16Array(2 * 3 * 2 * 4);
  for (let i = 0; i < 40; i++) texels[i] = 1000 + i;
  // --delta row on logical rows: within clip A (rows 0–2) and clip B (rows 3–4).
  for (const [top, rows] of [[0, 3], [3, 2]]) for (let y = top + rows - 1; y > top; y--) for (let i = y * 8; i < y * 8 + 8; i++) texels[i] -= texels[i - 8];
  description.texture.delta = { mode: 'row', order: 1 };
  const ktx2 = new THREE.DataTexture(texels, 2, 3, THREE.RGBAFormat, THREE.UnsignedShortType);
  const vat = fromParts(description, gltf, ktx2, { renderer: noNorm16 });
  assert.ok(vat.texture.isDataArrayTexture);
  assert.deepEqual([vat.texture.image.width, vat.texture.image.height, vat.texture.image.depth], [2, 3, 2]);
  assert.equal(vat.texture.internalFormat, 'RGBA16UI');
  assert.deepEqual(Array.from(vat.texture.image.data.subarray(0, 40)), Array.from({ length: 40 }, (_, i) => 1000 + i), 'every logical row restored');
  assert.deepEqual([vat.uniforms.vatSize.value.y, vat.uniforms.vatLayerHeight.value], [5, 3]);
  const mesh = new VatMesh(vat, 1);
  assert.equal(mesh.material[0].defines.VAT_LAYERS, '');
  const shader = { vertexShader: THREE.ShaderLib.standard.vertexShader, uniforms: {} };
  mesh.material[0].onBeforeCompile(shader);
  assert.doesNotMatch(shader.vertexShader, /objectNormal = vatNormal/, 'normals.mode "none": the rest normal is kept');
  assert.match(shader.vertexShader, /usampler2DArray vatTexture/);
  assert.throws(() => fromParts({ ...description, normals: { mode: 'sideways' } }, gltf, ktx2, { renderer: noNorm16 }), /normals.mode "sideways"/);
});
