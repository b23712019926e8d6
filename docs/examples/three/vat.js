// Play a vatbake bake in three.js: the rest GLB drawn as one InstancedMesh whose vertex
// shader takes every position and normal from the KTX2 texture (docs/FORMAT.md,
// docs/PLAYBACK.md). Copy this file and vat-delta.js; they need only `three` (0.187) and its addons.
//
//   const vat = await loadVat('bake/Fox.vat.json', { renderer, count: 100 });
//   scene.add(vat.mesh);
//   vat.setClip('Run');                 // every unit; or vat.setClip('Walk', 7) for unit 7
//   vat.setTimeOffset(7, 0.25);         // unit 7 runs 0.25 s ahead of the others
//   vat.mesh.setMatrixAt(7, matrix);    // place units as with any InstancedMesh
//   renderer.setAnimationLoop((ms) => { vat.update(ms / 1000); renderer.render(scene, camera); });
//
// Texture upload (the file is R16G16B16A16_UNORM, Zstandard-supercompressed KTX2):
// - 'integer' (default where norm16 is missing): the u16 texels exactly as stored, as an
//   RGBA16UI texture read with texelFetch on a usampler2D and normalised in the shader.
//   Core WebGL2; lossless.
// - 'norm16': RGBA16 UNORM as stored, read with texelFetch on a sampler2D (already 0..1).
//   Needs EXT_texture_norm16, which headless Chromium (SwiftShader) and many mobile
//   browsers lack. Also lossless: x / 65535 is exact in float32 and is rounded back.
import {
  BufferAttribute,
  BufferGeometry,
  InstancedBufferAttribute,
  InstancedMesh,
  Matrix4,
  NearestFilter,
  RGBAFormat,
  RGBAIntegerFormat,
  UnsignedShortType,
} from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import { undoDelta } from './vat-delta.js';

export { undoDelta };

/**
 * The decode, as GLSL ES 3.00 for a vertex shader. Per vertex: `uv1` (the rest GLB's
 * TEXCOORD_1). Per instance: `clipInfo` = (first row, rows, rate, loop ? 1 : 0) of the
 * clip being played and `vatTimeOffset` (seconds). Uniforms: the texture, the
 * description's `positions.center` and `positions.half_extent`, and `vatTime` (seconds).
 * `vatSample(p, n)` gives the model-space position and normal of this vertex now.
 * It is the shader of docs/PLAYBACK.md; VAT_NORM16 switches to the norm16 upload.
 */
export const VAT_GLSL = /* glsl */ `
#ifdef VAT_NORM16
uniform highp sampler2D vatTexture;                    // RGBA16 UNORM (EXT_texture_norm16)
uvec4 vatFetch(ivec2 texel) { return uvec4(round(texelFetch(vatTexture, texel, 0) * 65535.0)); }
#else
uniform highp usampler2D vatTexture;                   // RGBA16UI: the stored u16 values
uvec4 vatFetch(ivec2 texel) { return texelFetch(vatTexture, texel, 0); }
#endif
uniform vec3 vatCenter;                                // positions.center
uniform vec3 vatHalfExtent;                            // positions.half_extent
uniform float vatTime;                                 // seconds, shared by every unit

#ifndef USE_UV1
in vec2 uv1;                                           // TEXCOORD_1: the point's column and band
#endif
in vec4 clipInfo;                                      // per instance: (row, rows, rate, loop)
in float vatTimeOffset;                                // per instance: seconds added to vatTime

vec3 vatDecodePosition(uvec4 t) {
  return (vec3(t.rgb) / 65535.0 * 2.0 - 1.0) * vatHalfExtent + vatCenter;
}

// Octahedral 8 + 8 bits in alpha: x in the high byte, y in the low byte.
vec3 vatDecodeNormal(uint a) {
  vec2 o = vec2(float(a >> 8u), float(a & 255u)) / 255.0 * 2.0 - 1.0;
  vec3 n = vec3(o, 1.0 - abs(o.x) - abs(o.y));
  if (n.z < 0.0) {
    vec2 s = vec2(o.x >= 0.0 ? 1.0 : -1.0, o.y >= 0.0 ? 1.0 : -1.0);
    n.xy = (1.0 - abs(o.yx)) * s;
  }
  return normalize(n);
}

void vatSample(out vec3 p, out vec3 n) {
  ivec2 size = textureSize(vatTexture, 0);
  int column = int(uv1.x * float(size.x));             // u is a column centre: floor is exact
  int bandTop = int(uv1.y * float(size.y) + 0.5);      // v is the top row of the point's band
  float rows = clipInfo.y;
  float frame = (vatTime + vatTimeOffset) * clipInfo.z; // advance at the clip's own rate
  // A looping clip's last row equals its first: wrap over rows - 1 intervals.
  frame = clipInfo.w > 0.5 && rows > 1.0 ? mod(frame, rows - 1.0) : clamp(frame, 0.0, rows - 1.0);
  int r0 = int(floor(frame));
  int r1 = min(r0 + 1, int(rows) - 1);
  float f = frame - float(r0);
  int first = bandTop + int(clipInfo.x);
  uvec4 a = vatFetch(ivec2(column, first + r0));
  uvec4 b = vatFetch(ivec2(column, first + r1));
  p = mix(vatDecodePosition(a), vatDecodePosition(b), f);
  n = normalize(mix(vatDecodeNormal(a.a), vatDecodeNormal(b.a), f));
}
`;

/**
 * Make a built-in three.js material (MeshStandardMaterial, MeshLambertMaterial,
 * MeshBasicMaterial, …) draw VAT positions and normals: the decode goes in before
 * main(), and three's own `begin_vertex` / `beginnormal_vertex` chunks take the sampled
 * position and normal instead of the rest mesh's. Everything after them (instance
 * matrix, camera, lights, fog, maps) is three's usual code.
 * `uniforms` is shared by every material of one bake: {vatTexture, vatCenter, vatHalfExtent, vatTime}.
 */
export function applyVat(material, uniforms, { norm16 = false } = {}) {
  material.defines = { ...material.defines };
  if (norm16) material.defines.VAT_NORM16 = '';
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', `#include <common>\n${VAT_GLSL}`)
      .replace('void main() {', 'void main() {\n\tvec3 vatPosition, vatNormal;\n\tvatSample(vatPosition, vatNormal);')
      .replace('#include <beginnormal_vertex>', '#include <beginnormal_vertex>\n\tobjectNormal = vatNormal;')
      .replace('#include <begin_vertex>', '#include <begin_vertex>\n\ttransformed = vatPosition;');
  };
  material.customProgramCacheKey = () => `vatbake${norm16 ? '-norm16' : ''}`;
  material.needsUpdate = true;
  return material;
}

/**
 * Choose the upload path and prepare KTX2Loader's DataTexture for it (in place).
 * 'auto' takes norm16 where EXT_texture_norm16 exists, else the integer texture.
 */
export function prepareTexture(texture, renderer, path = 'auto') {
  const norm16 = path === 'norm16' || (path === 'auto' && renderer.extensions.has('EXT_texture_norm16'));
  if (path === 'norm16' && !renderer.extensions.has('EXT_texture_norm16')) {
    throw new Error('vat: the norm16 path needs EXT_texture_norm16, which this WebGL context lacks');
  }
  if (texture.type !== UnsignedShortType || texture.format !== RGBAFormat) {
    throw new Error('vat: expected KTX2Loader to give RGBA u16 texels (vkFormat 91, R16G16B16A16_UNORM)');
  }
  // Never filter, mipmap or colour-convert: neighbouring columns are unrelated points.
  texture.minFilter = NearestFilter;
  texture.magFilter = NearestFilter;
  texture.generateMipmaps = false;
  texture.flipY = false; // KTXorientation "rd": row 0 is the top row, texelFetch y = 0
  if (norm16) {
    texture.normalized = true; // three picks RGBA16_EXT
  } else {
    texture.format = RGBAIntegerFormat;
    texture.internalFormat = 'RGBA16UI';
    texture.normalized = false;
  }
  texture.needsUpdate = true;
  return norm16 ? 'norm16' : 'integer';
}

let ktx2Loader = null; // one per page, as three recommends

/**
 * Load a bake: its description (`*.vat.json`), then the rest GLB and the KTX2 it names
 * (relative to the description's URL).
 *
 * @param {string} descriptionUrl
 * @param {object} options
 * @param {import('three').WebGLRenderer} options.renderer  needed by KTX2Loader and to pick the upload path
 * @param {number} [options.count=1]  instances
 * @param {'auto'|'integer'|'norm16'} [options.path='auto']  texture upload path
 * @param {import('three').Material} [options.material]  one material for every primitive
 *   instead of the rest GLB's own (it is patched with applyVat)
 * @returns {Promise<{mesh: InstancedMesh, description: object, path: string, uniforms: object,
 *   texture: import('three').DataTexture, setClip: Function, setTimeOffset: Function, update: Function, dispose: Function}>}
 */
export async function loadVat(descriptionUrl, { renderer, count = 1, path = 'auto', material = null } = {}) {
  if (!renderer) throw new Error('vat: loadVat needs { renderer }');
  const base = new URL(descriptionUrl, document.baseURI);
  const response = await fetch(base);
  if (!response.ok) throw new Error(`vat: ${base}: HTTP ${response.status}`);
  const description = await response.json();
  if (description.format !== 'vatbake.vat' || description.format_version !== 1) {
    throw new Error(`vat: ${base} is not a vatbake.vat format_version 1 description`);
  }
  if (description.texture.container !== 'ktx2') {
    // Browsers' image decoders reduce a 16-bit PNG (--texture-format png) to 8 bits.
    throw new Error(`vat: ${base}: the texture is ${description.texture.container}; bake the default KTX2 for the web`);
  }

  // vkFormat 91 takes KTX2Loader's raw path (Zstandard in wasm): no Basis transcoder is fetched.
  ktx2Loader ??= new KTX2Loader();
  ktx2Loader.detectSupport(renderer);
  const [gltf, texture] = await Promise.all([
    new GLTFLoader().loadAsync(new URL(description.mesh.file, base).href),
    ktx2Loader.loadAsync(new URL(description.texture.file, base).href),
  ]);
  // A bake made with --delta stores each clip's rows as differences: running sums
  // down the rows give back the texels the shader reads (before the first upload).
  undoDelta(texture.image.data, description);
  const texturePath = prepareTexture(texture, renderer, path);

  const uniforms = {
    vatTexture: { value: texture },
    vatCenter: { value: description.positions.center.slice() },
    vatHalfExtent: { value: description.positions.half_extent.slice() },
    vatTime: { value: 0 },
  };
  const { geometry, materials } = restGeometry(gltf.scene);
  // Per instance: clip (row, rows, rate, loop) and time offset.
  const clipInfo = new InstancedBufferAttribute(new Float32Array(count * 4), 4);
  const timeOffset = new InstancedBufferAttribute(new Float32Array(count), 1);
  geometry.setAttribute('clipInfo', clipInfo);
  geometry.setAttribute('vatTimeOffset', timeOffset);
  // The rest GLB's POSITION includes two vertices at the corners of the animation's
  // bounds, so this box (and three's frustum culling) covers every frame.
  geometry.computeBoundingBox();
  geometry.computeBoundingSphere();

  const norm16 = texturePath === 'norm16';
  const drawn = material
    ? applyVat(material, uniforms, { norm16 })
    : materials.map((m) => applyVat(m.clone(), uniforms, { norm16 }));
  const mesh = new InstancedMesh(geometry, drawn, count);
  mesh.name = description.mesh.file;
  const identity = new Matrix4();
  for (let i = 0; i < count; i++) mesh.setMatrixAt(i, identity);

  const clips = new Map(description.clips.map((c) => [c.name, c]));
  const setClip = (name, index = null) => {
    const clip = clips.get(name);
    if (!clip) throw new Error(`vat: no clip "${name}" (have: ${[...clips.keys()].join(', ')})`);
    const from = index === null ? 0 : index;
    const to = index === null ? count : index + 1;
    for (let i = from; i < to; i++) clipInfo.setXYZW(i, clip.row, clip.rows, clip.rate, clip.loop ? 1 : 0);
    clipInfo.needsUpdate = true;
  };
  setClip(description.clips[0].name);

  return {
    mesh,
    description,
    path: texturePath,
    uniforms,
    texture,
    setClip,
    /** Unit `index` plays `seconds` ahead of the shared time. */
    setTimeOffset(index, seconds) {
      timeOffset.setX(index, seconds);
      timeOffset.needsUpdate = true;
    },
    /** The shared clock, in seconds. */
    update(seconds) {
      uniforms.vatTime.value = seconds;
    },
    dispose() {
      geometry.dispose();
      texture.dispose();
      for (const m of Array.isArray(drawn) ? drawn : [drawn]) m.dispose();
    },
  };
}

/**
 * The rest GLB's one mesh as one geometry: its primitives share one vertex set (one
 * primitive per source material), so keep the attributes, join the index buffers and
 * give each primitive a group with its material.
 */
function restGeometry(scene) {
  const meshes = [];
  scene.traverse((o) => {
    if (o.isMesh) meshes.push(o);
  });
  if (meshes.length === 0) throw new Error('vat: the rest GLB has no mesh');
  const materials = meshes.map((m) => m.material);
  const first = meshes[0].geometry;
  const shared = meshes.every((m) => m.geometry.attributes.position === first.attributes.position && m.geometry.index);
  let geometry;
  if (shared) {
    geometry = new BufferGeometry();
    for (const [name, attribute] of Object.entries(first.attributes)) geometry.setAttribute(name, attribute);
    const total = meshes.reduce((n, m) => n + m.geometry.index.count, 0);
    const index = new Uint32Array(total);
    let start = 0;
    meshes.forEach((m, i) => {
      index.set(m.geometry.index.array, start);
      geometry.addGroup(start, m.geometry.index.count, i);
      start += m.geometry.index.count;
    });
    geometry.setIndex(new BufferAttribute(index, 1));
  } else {
    geometry = mergeGeometries(meshes.map((m) => m.geometry), true);
    if (!geometry) throw new Error('vat: the rest GLB primitives have different attributes');
  }
  if (!geometry.attributes.uv1) throw new Error('vat: the rest GLB has no TEXCOORD_1');
  return { geometry, materials };
}
