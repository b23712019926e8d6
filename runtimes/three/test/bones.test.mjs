// Bone bakes (src/bones.js) in node, no WebGL: the description check, the refusals, the
// per-instance clip attribute the shader reads and the shader patch on three's own
// sources. tests/browser/bones.test.mjs draws it in headless Chromium against three.js's
// own SkinnedMesh playback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { boneVatFromParts, checkBoneDescription, checkDescription, loadBoneVat, BONES_GLSL, patchBoneMaterial } from '../src/index.js';

// A bone bake of 2 joints × 5 rows (8 texels a row): clip "Idle" rows 0–1 (loops),
// clip "Wave" rows 2–4 at 10 rows a second.
function bake({ influences = 4 } = {}) {
  const description = {
    format: 'vatbake.vat', format_version: 1, points: 3, rows: 5,
    texture: { file: 'x.vat.ktx2', container: 'ktx2', vk_format: 109, format: 'R32G32B32A32_SFLOAT', width: 8, height: 5, bands: 1, column_order: 'joints' },
    positions: { channels: 'none', encoding: 'bones', center: [0, 1, 0], half_extent: [2, 3, 4] },
    normals: { channel: 'none', encoding: 'bones' },
    bones: { joints: 2, encoding: 'float32', influences, sources: [{ node: 1, name: 'root', skin_joint: [0, 0] }, { node: 2, name: 'arm', skin_joint: [0, 1] }] },
    mesh: { file: 'x.rest.glb', points: 3 },
    clips: [
      { name: 'Idle', row: 0, rows: 2, rate: 30, duration: 1 / 30, loop: true },
      { name: 'Wave', row: 2, rows: 3, rate: 10, duration: 0.2, loop: false },
    ],
  };
  const texture = new THREE.DataTexture(new Float32Array(8 * 5 * 4), 8, 5, THREE.RGBAFormat, THREE.FloatType);
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0, 0, 1, 0], 3));
  geometry.setAttribute('normal', new THREE.Float32BufferAttribute([0, 0, 1, 0, 0, 1, 0, 0, 1], 3));
  geometry.setAttribute('skinIndex', new THREE.Uint16BufferAttribute([0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0], 4));
  geometry.setAttribute('skinWeight', new THREE.Float32BufferAttribute([1, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0], 4));
  if (influences === 8) {
    geometry.setAttribute('joints_1', new THREE.Uint16BufferAttribute(new Uint16Array(12), 4));
    geometry.setAttribute('weights_1', new THREE.Float32BufferAttribute(new Float32Array(12), 4));
  }
  geometry.setIndex([0, 1, 2]);
  const scene = new THREE.Group().add(new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({ color: 0x3366ff })));
  return { description, texture, gltf: { scene } };
}

const vertexBake = () => ({
  format: 'vatbake.vat', format_version: 1,
  texture: { file: 'u.vat.ktx2', container: 'ktx2', vk_format: 91, width: 2, height: 5 },
  mesh: { file: 'u.rest.glb' },
  clips: [{ name: 'A', row: 0, rows: 5, rate: 30, loop: true }],
});

test('a bone bake passes the check; a vertex bake is refused each way with the player to use', () => {
  const { description } = bake();
  assert.equal(checkBoneDescription(description), description);
  assert.throws(() => checkBoneDescription(vertexBake(), 'u.vat.json'), {
    message: 'vatbake: u.vat.json is not a bone bake (bake with --mode bones); play vertex bakes with loadVat',
  });
  assert.throws(() => checkDescription(description, 'x.vat.json'), { message: 'vatbake: x.vat.json is a bone bake (--mode bones): play it with loadBoneVat' });
  assert.throws(() => checkBoneDescription({ format: 'other' }, 'x.vat.json'), { message: 'vatbake: x.vat.json is not a vatbake.vat format_version 1 description' });
  const six = { ...description, bones: { ...description.bones, influences: 6 } };
  assert.throws(() => checkBoneDescription(six, 'x.vat.json'), { message: 'vatbake: x.vat.json: bones.influences 6; this player skins with 4 or 8' });
  assert.throws(() => checkBoneDescription({ ...description, clips: [] }, 'x.vat.json'), { message: 'vatbake: x.vat.json has no clips' });
});

test('loadBoneVat refuses a vertex bake after fetching its description, before any other file', async () => {
  const fetched = [];
  const loaded = [];
  const own = globalThis.fetch;
  globalThis.fetch = async (url) => {
    fetched.push(String(url));
    return { ok: true, status: 200, json: async () => vertexBake() };
  };
  const loader = { workerConfig: {}, loadAsync: async (url) => loaded.push(url) };
  try {
    await assert.rejects(loadBoneVat('http://127.0.0.1:8000/bake/u.vat.json', { loader, renderer: {} }), {
      message: 'vatbake: http://127.0.0.1:8000/bake/u.vat.json is not a bone bake (bake with --mode bones); play vertex bakes with loadVat',
    });
    assert.deepEqual(fetched, ['http://127.0.0.1:8000/bake/u.vat.json']);
    assert.deepEqual(loaded, []);
    await assert.rejects(loadBoneVat('u.vat.json', { renderer: {} }), /loadBoneVat needs \{ loader \}/);
    await assert.rejects(loadBoneVat('u.vat.json', { loader }), /loadBoneVat needs \{ renderer \}/);
  } finally {
    globalThis.fetch = own;
  }
});

test('boneVatFromParts: per-instance clip and time offset as the shader reads them, by name or index', () => {
  const { description, texture, gltf } = bake();
  const bones = boneVatFromParts(description, gltf, texture, { count: 3 });
  const clipInfo = bones.mesh.geometry.attributes.clipInfo;
  const at = (i) => Array.from(clipInfo.array.subarray(i * 4, i * 4 + 4));
  assert.equal(bones.mesh.count, 3);
  assert.deepEqual([at(0), at(1), at(2)], [[0, 2, 30, 1], [0, 2, 30, 1], [0, 2, 30, 1]], 'every unit starts on the first clip');
  bones.setClip('Wave', 1);
  assert.deepEqual([at(0), at(1), at(2)], [[0, 2, 30, 1], [2, 3, 10, 0], [0, 2, 30, 1]], 'unit 1 alone');
  bones.setClip(1);
  assert.deepEqual([at(0), at(2)], [[2, 3, 10, 0], [2, 3, 10, 0]], 'every unit, the clip by index');
  assert.throws(() => bones.setClip('Jump', 0), { message: 'vatbake: no clip "Jump" (have: Idle, Wave)' });
  bones.setTimeOffset(2, 0.25);
  assert.deepEqual(Array.from(bones.mesh.geometry.attributes.vatTimeOffset.array), [0, 0, 0.25]);
  bones.update(1.5);
  assert.equal(bones.uniforms.vatTime.value, 1.5);
  assert.deepEqual(bones.clips.map((c) => [c.index, c.name, c.row, c.rows, c.loop]), [[0, 'Idle', 0, 2, true], [1, 'Wave', 2, 3, false]]);
  const started = boneVatFromParts(description, bake().gltf, texture, { count: 2, clip: 'Wave' });
  assert.deepEqual(Array.from(started.mesh.geometry.attributes.clipInfo.array), [2, 3, 10, 0, 2, 3, 10, 0]);
});

test('boneVatFromParts: texture read texel for texel, bounds of every frame, identity instances', () => {
  const { description, texture, gltf } = bake();
  const bones = boneVatFromParts(description, gltf, texture, { count: 2 });
  assert.equal(bones.texture, texture);
  assert.deepEqual([texture.minFilter, texture.magFilter, texture.generateMipmaps, texture.flipY], [THREE.NearestFilter, THREE.NearestFilter, false, false]);
  const { boundingBox } = bones.mesh.geometry;
  assert.deepEqual([boundingBox.min.toArray(), boundingBox.max.toArray()], [[-2, -2, -4], [2, 4, 4]]);
  const m = new THREE.Matrix4();
  bones.mesh.getMatrixAt(1, m);
  assert.ok(m.equals(new THREE.Matrix4()));
  assert.equal(bones.mesh.name, 'x.rest.glb');
});

test('materials: a clone of the rest GLB\'s own, patched with the skinning; 8 influences compile the second set in', () => {
  const { description, texture, gltf } = bake();
  const bones = boneVatFromParts(description, gltf, texture);
  const [material] = bones.mesh.material;
  assert.equal(material.color.getHex(), 0x3366ff);
  assert.notEqual(material, gltf.scene.children[0].material, 'a clone, not the GLB\'s own');
  assert.equal(material.defines.BONES_EIGHT, undefined);
  const shader = { vertexShader: THREE.ShaderLib.standard.vertexShader, uniforms: {} };
  material.onBeforeCompile(shader);
  assert.ok(shader.vertexShader.includes(BONES_GLSL));
  assert.match(shader.vertexShader, /void main\(\) \{\n\tvec3 bonePosition, boneNormal;\n\tboneSample\(bonePosition, boneNormal\);/);
  assert.match(shader.vertexShader, /#include <begin_vertex>\n\ttransformed = bonePosition;/);
  assert.match(shader.vertexShader, /#include <beginnormal_vertex>\n\tobjectNormal = boneNormal;/);
  assert.equal(shader.uniforms.boneTexture.value, texture);
  assert.equal(shader.uniforms.vatTime, bones.uniforms.vatTime, 'the clock is shared by reference');
  assert.equal(material.customProgramCacheKey(), 'vatbake-bones');

  const eight = bake({ influences: 8 });
  const white = new THREE.MeshBasicMaterial();
  const drawn = boneVatFromParts(eight.description, eight.gltf, eight.texture, { material: white });
  assert.equal(drawn.mesh.material, white, 'the material given, patched in place');
  assert.equal(white.defines.BONES_EIGHT, '');
  assert.equal(white.customProgramCacheKey(), 'vatbake-bones-8');
  const points = patchBoneMaterial(new THREE.PointsMaterial(), drawn.uniforms);
  assert.throws(() => points.onBeforeCompile({ vertexShader: 'void main() {}', uniforms: {} }), { message: 'vatbake: this material\'s vertex shader has no "#include <common>" to patch' });
});

test('boneVatFromParts refuses a texture of another bake or type and a rest mesh without joints', () => {
  const { description, gltf } = bake();
  const other = new THREE.DataTexture(new Float32Array(12 * 5 * 4), 12, 5, THREE.RGBAFormat, THREE.FloatType);
  assert.throws(() => boneVatFromParts(description, gltf, other), { message: 'vatbake: the KTX2 is 12×5 (60 texels), the description says 8×5: a texture from another bake?' });
  const u16 = new THREE.DataTexture(new Uint16Array(8 * 5 * 4), 8, 5, THREE.RGBAFormat, THREE.UnsignedShortType);
  assert.throws(() => boneVatFromParts(description, gltf, u16), { message: 'vatbake: expected KTX2Loader to give RGBA float texels (vkFormat 109, R32G32B32A32_SFLOAT)' });
  const b = bake();
  b.gltf.scene.children[0].geometry.deleteAttribute('skinIndex');
  assert.throws(() => boneVatFromParts(b.description, b.gltf, b.texture), { message: 'vatbake: the rest GLB has no JOINTS_0: a rest mesh of a vertex bake?' });
  const eight = bake();
  eight.description.bones.influences = 8;
  assert.throws(() => boneVatFromParts(eight.description, eight.gltf, eight.texture), { message: 'vatbake: the description says 8 influences; the rest GLB has no JOINTS_1' });
});

// The same bake under `--bone-encoding quat16`: 2 RGBA16 texels a joint (4 a row).
function quat16Bake() {
  const b = bake();
  b.description.texture = { ...b.description.texture, vk_format: 91, format: 'R16G16B16A16_UNORM', width: 4 };
  b.description.bones = {
    ...b.description.bones,
    encoding: 'quat16',
    quantization: { translation_min: [-1, 0, -2], translation_max: [1, 3, 2], scale_min: 0.5, scale_max: 1 },
  };
  b.texture = new THREE.DataTexture(new Uint16Array(4 * 5 * 4), 4, 5, THREE.RGBAFormat, THREE.UnsignedShortType);
  return b;
}

test('quat16: the ranges as uniforms, the 16-bit decode compiled in, the texture up as RGBA16UI or RGBA16 UNORM', () => {
  const { description, texture, gltf } = quat16Bake();
  assert.equal(checkBoneDescription(description), description);
  const bones = boneVatFromParts(description, gltf, texture, { count: 2 });
  assert.equal(bones.path, 'integer', 'no renderer: core WebGL2\'s RGBA16UI');
  assert.deepEqual([texture.internalFormat, texture.minFilter, texture.magFilter, texture.generateMipmaps, texture.flipY], ['RGBA16UI', THREE.NearestFilter, THREE.NearestFilter, false, false]);
  assert.deepEqual(
    [bones.uniforms.boneTranslationMin.value.toArray(), bones.uniforms.boneTranslationMax.value.toArray(), bones.uniforms.boneScaleRange.value.toArray()],
    [[-1, 0, -2], [1, 3, 2], [0.5, 1]],
  );
  const [material] = bones.mesh.material;
  assert.deepEqual([material.defines.BONES_QUAT16, material.defines.BONES_NORM16], ['', undefined]);
  assert.equal(material.customProgramCacheKey(), 'vatbake-bones-quat16-integer');
  const shader = { vertexShader: THREE.ShaderLib.standard.vertexShader, uniforms: {} };
  material.onBeforeCompile(shader);
  assert.equal(shader.uniforms.boneScaleRange, bones.uniforms.boneScaleRange);
  assert.match(BONES_GLSL, /#ifdef BONES_QUAT16\n#ifdef BONES_NORM16\nuniform highp sampler2D boneTexture;/);
  assert.match(BONES_GLSL, /#else\nuniform highp usampler2D boneTexture; +\/\/ RGBA16UI/);

  // With EXT_texture_norm16, the texture stays normalized and the sampler is a sampler2D.
  const norm = quat16Bake();
  const renderer = { extensions: { has: (name) => name === 'EXT_texture_norm16' } };
  const drawn = boneVatFromParts(norm.description, norm.gltf, norm.texture, { renderer, material: new THREE.MeshBasicMaterial() });
  assert.equal(drawn.path, 'norm16');
  assert.equal(norm.texture.normalized, true);
  assert.deepEqual([drawn.mesh.material.defines.BONES_QUAT16, drawn.mesh.material.defines.BONES_NORM16], ['', '']);
  assert.equal(drawn.mesh.material.customProgramCacheKey(), 'vatbake-bones-quat16-norm16');
  // A float bake keeps its float texture and the float decode.
  const f = bake();
  const float = boneVatFromParts(f.description, f.gltf, f.texture);
  assert.equal(float.path, 'float');
  assert.equal(float.mesh.material[0].defines.BONES_QUAT16, undefined);
});

test('quat16: a texture or a description that does not match the encoding is refused', () => {
  const { description, gltf } = quat16Bake();
  const floats = new THREE.DataTexture(new Float32Array(4 * 5 * 4), 4, 5, THREE.RGBAFormat, THREE.FloatType);
  assert.throws(() => boneVatFromParts(description, gltf, floats), { message: 'vatbake: expected KTX2Loader to give RGBA u16 texels (vkFormat 91, R16G16B16A16_UNORM)' });
  const wrongFormat = { ...description, texture: { ...description.texture, vk_format: 109 } };
  assert.throws(() => checkBoneDescription(wrongFormat, 'x.vat.json'), { message: 'vatbake: x.vat.json: bones.encoding quat16 with texture vk_format 109; it takes 91' });
  const noRanges = { ...description, bones: { ...description.bones, quantization: undefined } };
  assert.throws(() => checkBoneDescription(noRanges, 'x.vat.json'), {
    message: 'vatbake: x.vat.json: bones.encoding quat16 without bones.quantization\'s ranges (translation_min, translation_max, scale_min, scale_max)',
  });
  const half = { ...description, bones: { ...description.bones, encoding: 'half' } };
  assert.throws(() => checkBoneDescription(half, 'x.vat.json'), { message: 'vatbake: x.vat.json: bones.encoding "half"; this player reads float32 and quat16' });
});
