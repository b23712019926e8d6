// Bone bakes (`vatbake bake --mode bones`; docs/FORMAT.md, "Bone bakes"): the rest GLB
// (bind pose, with JOINTS_0/WEIGHTS_0) drawn as one InstancedMesh whose vertex shader
// skins every vertex with joint matrices read from the KTX2 texture. Under
// `bones.encoding` "float32" the texture is R32G32B32A32_SFLOAT, which core WebGL2 reads
// with texelFetch (no float-filtering extension needed): 4 texels, a matrix's columns, a
// joint. Under "quat16" (`--bone-encoding quat16`) it is R16G16B16A16_UNORM, 2 texels a
// joint (translation and scale, then a unit quaternion, 16 bits each within
// `bones.quantization`'s ranges), read as RGBA16 UNORM (EXT_texture_norm16) or RGBA16UI
// like a vertex bake's texture, and each matrix is rebuilt in the shader.
//
//   const loader = new KTX2Loader().detectSupport(renderer);
//   const bones = await loadBoneVat('bake/Fox.vat.json', { loader, renderer, count: 100 });
//   scene.add(bones.mesh);
//   bones.setClip('Run');               // every unit; or bones.setClip('Walk', 7) for unit 7
//   bones.setTimeOffset(7, 0.25);
//   renderer.setAnimationLoop((ms) => { bones.update(ms / 1000); renderer.render(scene, camera); });
import { FloatType, InstancedBufferAttribute, InstancedMesh, Matrix4, NearestFilter, RGBAFormat, Vector2, Vector3 } from 'three';
import { fetchBake, mergeRestMeshes, prepareTexture, setBakedBounds } from './load.js';
import { clipTable, findClip } from './clips.js';

/**
 * The skinning, as GLSL ES 3.00 for a vertex shader. Per vertex: position, normal,
 * skinIndex/skinWeight (JOINTS_0/WEIGHTS_0) and, with BONES_EIGHT, joints_1/weights_1.
 * Per instance: clipInfo = (first row, rows, rate, loop ? 1 : 0) and vatTimeOffset.
 * `boneSample(p, n)` gives the skinned model-space position and normal now: the two
 * rows around the time are each skinned, then blended.
 * Defines: BONES_QUAT16 (the 16-bit form: uniforms boneTranslationMin/Max, boneScaleRange
 * from `bones.quantization`), with BONES_NORM16 (an RGBA16 UNORM texture on a sampler2D
 * instead of RGBA16UI on a usampler2D).
 */
export const BONES_GLSL = /* glsl */ `
#ifdef BONES_QUAT16
#ifdef BONES_NORM16
uniform highp sampler2D boneTexture;                   // RGBA16 UNORM (EXT_texture_norm16)
vec4 boneFetch(int x, int row) { return texelFetch(boneTexture, ivec2(x, row), 0); }
#else
uniform highp usampler2D boneTexture;                  // RGBA16UI: the stored u16 values
vec4 boneFetch(int x, int row) { return vec4(texelFetch(boneTexture, ivec2(x, row), 0)) / 65535.0; }
#endif
uniform vec3 boneTranslationMin;                       // bones.quantization.translation_min
uniform vec3 boneTranslationMax;                       // bones.quantization.translation_max
uniform vec2 boneScaleRange;                           // (scale_min, scale_max)

// Texel 2j: translation (rgb) and uniform scale (a); texel 2j+1: the unit quaternion.
mat4 boneMatrix(float joint, int row) {
  int x = int(joint + 0.5) * 2;
  vec4 ts = boneFetch(x, row);
  vec4 q = boneFetch(x + 1, row) * 2.0 - 1.0;
  q = dot(q, q) > 0.0 ? normalize(q) : vec4(0.0, 0.0, 0.0, 1.0);
  vec3 t = boneTranslationMin + ts.xyz * (boneTranslationMax - boneTranslationMin);
  float s = boneScaleRange.x + ts.w * (boneScaleRange.y - boneScaleRange.x);
  mat3 r = mat3(1.0 - 2.0 * (q.y * q.y + q.z * q.z), 2.0 * (q.x * q.y + q.z * q.w), 2.0 * (q.x * q.z - q.y * q.w),
                2.0 * (q.x * q.y - q.z * q.w), 1.0 - 2.0 * (q.x * q.x + q.z * q.z), 2.0 * (q.y * q.z + q.x * q.w),
                2.0 * (q.x * q.z + q.y * q.w), 2.0 * (q.y * q.z - q.x * q.w), 1.0 - 2.0 * (q.x * q.x + q.y * q.y)) * s;
  return mat4(vec4(r[0], 0.0), vec4(r[1], 0.0), vec4(r[2], 0.0), vec4(t, 1.0));
}
#else
uniform highp sampler2D boneTexture;                   // RGBA32F: 4 texels (matrix columns) per joint

mat4 boneMatrix(float joint, int row) {
  int x = int(joint + 0.5) * 4;
  return mat4(texelFetch(boneTexture, ivec2(x, row), 0), texelFetch(boneTexture, ivec2(x + 1, row), 0),
              texelFetch(boneTexture, ivec2(x + 2, row), 0), texelFetch(boneTexture, ivec2(x + 3, row), 0));
}
#endif
uniform float vatTime;
#ifndef USE_SKINNING
in vec4 skinIndex;
in vec4 skinWeight;
#endif
#ifdef BONES_EIGHT
in vec4 joints_1;
in vec4 weights_1;
#endif
in vec4 clipInfo;
in float vatTimeOffset;

mat4 boneBlend(int row) {
  mat4 m = boneMatrix(skinIndex.x, row) * skinWeight.x + boneMatrix(skinIndex.y, row) * skinWeight.y
         + boneMatrix(skinIndex.z, row) * skinWeight.z + boneMatrix(skinIndex.w, row) * skinWeight.w;
#ifdef BONES_EIGHT
  m += boneMatrix(joints_1.x, row) * weights_1.x + boneMatrix(joints_1.y, row) * weights_1.y
     + boneMatrix(joints_1.z, row) * weights_1.z + boneMatrix(joints_1.w, row) * weights_1.w;
#endif
  return m;
}

void boneSample(out vec3 p, out vec3 n) {
  float rows = clipInfo.y;
  float frame = (vatTime + vatTimeOffset) * clipInfo.z;
  frame = clipInfo.w > 0.5 && rows > 1.0 ? mod(frame, rows - 1.0) : clamp(frame, 0.0, rows - 1.0);
  int r0 = int(floor(frame));
  int r1 = min(r0 + 1, int(rows) - 1);
  float f = frame - float(r0);
  mat4 a = boneBlend(int(clipInfo.x) + r0);
  mat4 b = boneBlend(int(clipInfo.x) + r1);
  p = mix((a * vec4(position, 1.0)).xyz, (b * vec4(position, 1.0)).xyz, f);
  n = normalize(mix(transpose(inverse(mat3(a))) * normal, transpose(inverse(mat3(b))) * normal, f));
}
`;

/**
 * Check a parsed description is a bone bake this module plays; a clear error otherwise
 * (a vertex bake is refused with a pointer to loadVat).
 * @param {object} description
 * @param {string} [where]  the URL or file, for the message
 */
export function checkBoneDescription(description, where = 'the description') {
  if (description?.format !== 'vatbake.vat' || description.format_version !== 1) {
    throw new Error(`vatbake: ${where} is not a vatbake.vat format_version 1 description`);
  }
  if (!description.bones) {
    throw new Error(`vatbake: ${where} is not a bone bake (bake with --mode bones); play vertex bakes with loadVat`);
  }
  const encoding = description.bones.encoding ?? 'float32';
  const vkFormat = { float32: 109, quat16: 91 }[encoding];
  if (vkFormat === undefined) {
    throw new Error(`vatbake: ${where}: bones.encoding "${encoding}"; this player reads float32 and quat16`);
  }
  if (description.texture?.vk_format !== vkFormat) {
    throw new Error(`vatbake: ${where}: bones.encoding ${encoding} with texture vk_format ${description.texture?.vk_format}; it takes ${vkFormat}`);
  }
  const q = description.bones.quantization;
  const triple = (v) => Array.isArray(v) && v.length === 3 && v.every(Number.isFinite);
  if (encoding === 'quat16' && !(q && triple(q.translation_min) && triple(q.translation_max) && Number.isFinite(q.scale_min) && Number.isFinite(q.scale_max))) {
    throw new Error(`vatbake: ${where}: bones.encoding quat16 without bones.quantization's ranges (translation_min, translation_max, scale_min, scale_max)`);
  }
  const influences = description.bones.influences;
  if (influences !== 4 && influences !== 8) {
    throw new Error(`vatbake: ${where}: bones.influences ${influences}; this player skins with 4 or 8`);
  }
  if (!Array.isArray(description.clips) || description.clips.length === 0) {
    throw new Error(`vatbake: ${where} has no clips`);
  }
  return description;
}

/**
 * Put the skinning into one of three's built-in shaders (the `shader` of
 * onBeforeCompile): before main(), and into the `begin_vertex` and `beginnormal_vertex`
 * chunks, as patchVertexShader does for vertex bakes. Throws if three's chunks are not there.
 * @returns {string} the patched vertex shader
 */
export function patchBoneVertexShader(vertexShader) {
  for (const chunk of ['#include <common>', 'void main() {', '#include <begin_vertex>']) {
    if (!vertexShader.includes(chunk)) throw new Error(`vatbake: this material's vertex shader has no "${chunk}" to patch`);
  }
  return vertexShader
    .replace('#include <common>', `#include <common>\n${BONES_GLSL}`)
    .replace('void main() {', 'void main() {\n\tvec3 bonePosition, boneNormal;\n\tboneSample(bonePosition, boneNormal);')
    .replace('#include <beginnormal_vertex>', '#include <beginnormal_vertex>\n\tobjectNormal = boneNormal;')
    .replace('#include <begin_vertex>', '#include <begin_vertex>\n\ttransformed = bonePosition;');
}

/**
 * Make a built-in three.js material draw the skinned positions and normals through
 * onBeforeCompile, as patchMaterial does for vertex bakes. `uniforms` (shared by
 * reference): boneTexture, vatTime (and under quat16 boneTranslationMin, boneTranslationMax,
 * boneScaleRange). `eight`: the rest mesh has JOINTS_1/WEIGHTS_1. `quat16`: the 16-bit
 * form, read through `path` ('norm16' or 'integer', what prepareTexture chose).
 * @param {import('three').Material} material  patched in place and returned
 */
export function patchBoneMaterial(material, uniforms, { eight = false, quat16 = false, path = 'integer' } = {}) {
  material.defines = { ...material.defines };
  const set = (name, on) => {
    if (on) material.defines[name] = '';
    else delete material.defines[name];
  };
  set('BONES_EIGHT', eight);
  set('BONES_QUAT16', quat16);
  set('BONES_NORM16', quat16 && path === 'norm16');
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = patchBoneVertexShader(shader.vertexShader);
  };
  const form = quat16 ? `-quat16-${path}` : '';
  material.customProgramCacheKey = () => `vatbake-bones${eight ? '-8' : ''}${form}`;
  material.needsUpdate = true;
  return material;
}

/**
 * Load a bone bake: its description (`*.vat.json`), then the rest GLB and the KTX2 it
 * names (relative to the description's URL), as loadVat does for vertex bakes.
 *
 * @param {string} descriptionUrl
 * @param {object} options
 * @param {import('three/addons/loaders/KTX2Loader.js').KTX2Loader} options.loader  three's KTX2Loader, as is
 * @param {import('three').WebGLRenderer} options.renderer  for the loader's detectSupport
 * @param {number} [options.count=1]  units
 * @param {import('three').Material|import('three').Material[]} [options.material]  drawn instead
 *   of (clones of) the rest GLB's own materials; patched here
 * @param {string|number} [options.clip]  every unit's first clip (default: the description's first)
 * @param {import('three/addons/loaders/GLTFLoader.js').GLTFLoader} [options.gltfLoader]  for the rest GLB
 * @param {'auto'|'integer'|'norm16'} [options.path='auto']  a quat16 texture's upload, as loadVat's
 */
export async function loadBoneVat(descriptionUrl, { loader, renderer, gltfLoader = null, ...options } = {}) {
  if (!loader) throw new Error('vatbake: loadBoneVat needs { loader }: a KTX2Loader (three/addons/loaders/KTX2Loader.js)');
  if (!renderer) throw new Error('vatbake: loadBoneVat needs { renderer } for the KTX2Loader');
  const { description, gltf, texture } = await fetchBake(descriptionUrl, checkBoneDescription, { loader, renderer, gltfLoader });
  return boneVatFromParts(description, gltf, texture, { renderer, ...options });
}

/**
 * The part of loadBoneVat after the fetches: for callers that load the three files their
 * own way. Returns the units' InstancedMesh (`mesh`, every instance matrix the identity)
 * with the controls of every unit's clip and time.
 * @param {object} description  the parsed `*.vat.json`
 * @param {{ scene: import('three').Object3D }} gltf  GLTFLoader's result for the rest GLB
 * @param {import('three').DataTexture} texture  KTX2Loader's result for the KTX2
 * Options: `renderer` and `path` choose a quat16 texture's upload (prepareTexture; without a
 * renderer, RGBA16UI, which core WebGL2 reads).
 */
export function boneVatFromParts(description, gltf, texture, { count = 1, material = null, clip = null, renderer = null, path = 'auto' } = {}) {
  checkBoneDescription(description);
  const quat16 = description.bones.encoding === 'quat16';
  const { width, height } = description.texture;
  const { image } = texture;
  if (image.width !== width || image.height !== height || image.data.length !== width * height * 4) {
    throw new Error(`vatbake: the KTX2 is ${image.width}×${image.height} (${image.data.length / 4} texels), the description says ${width}×${height}: a texture from another bake?`);
  }
  let upload = null;
  if (quat16) {
    // Nearest, no mipmaps, no flip, as a vertex bake's 16-bit texture.
    upload = prepareTexture(texture, renderer, path);
  } else {
    if (texture.type !== FloatType || texture.format !== RGBAFormat) {
      throw new Error('vatbake: expected KTX2Loader to give RGBA float texels (vkFormat 109, R32G32B32A32_SFLOAT)');
    }
    // Never filter, mipmap or flip: neighbouring texels are other columns and other joints.
    texture.minFilter = NearestFilter;
    texture.magFilter = NearestFilter;
    texture.generateMipmaps = false;
    texture.flipY = false;
    texture.needsUpdate = true;
  }

  const eight = description.bones.influences === 8;
  const { geometry, materials } = mergeRestMeshes(gltf.scene);
  if (!geometry.attributes.skinIndex) throw new Error('vatbake: the rest GLB has no JOINTS_0: a rest mesh of a vertex bake?');
  if (eight && !geometry.attributes.joints_1) throw new Error('vatbake: the description says 8 influences; the rest GLB has no JOINTS_1');
  const clipInfo = new InstancedBufferAttribute(new Float32Array(count * 4), 4);
  const timeOffset = new InstancedBufferAttribute(new Float32Array(count), 1);
  geometry.setAttribute('clipInfo', clipInfo);
  geometry.setAttribute('vatTimeOffset', timeOffset);
  // The rest mesh is in bind space; the description's bounds cover every frame.
  setBakedBounds(geometry, description);

  const uniforms = { boneTexture: { value: texture }, vatTime: { value: 0 } };
  if (quat16) {
    const q = description.bones.quantization;
    uniforms.boneTranslationMin = { value: new Vector3(...q.translation_min) };
    uniforms.boneTranslationMax = { value: new Vector3(...q.translation_max) };
    uniforms.boneScaleRange = { value: new Vector2(q.scale_min, q.scale_max) };
  }
  const drawn = material ?? materials.map((m) => m.clone());
  const list = Array.isArray(drawn) ? drawn : [drawn];
  for (const m of list) patchBoneMaterial(m, uniforms, { eight, quat16, path: upload ?? 'integer' });
  const mesh = new InstancedMesh(geometry, drawn, count);
  mesh.name = description.mesh?.file ?? 'vatbake-bones';
  const identity = new Matrix4();
  for (let i = 0; i < count; i++) mesh.setMatrixAt(i, identity);

  const clips = clipTable(description);
  /** Unit `index` (every unit: null) plays clip `name` (or index). */
  const setClip = (name, index = null) => {
    const c = findClip(clips, name);
    const [from, to] = index === null ? [0, count] : [index, index + 1];
    for (let i = from; i < to; i++) clipInfo.setXYZW(i, c.row, c.rows, c.rate, c.loop ? 1 : 0);
    clipInfo.needsUpdate = true;
  };
  setClip(clip ?? 0);
  return {
    mesh,
    description,
    clips,
    uniforms,
    texture,
    /** How the texture went up: 'float' (float32), or 'norm16'/'integer' (quat16). */
    path: upload ?? 'float',
    setClip,
    /** Unit `index` runs `seconds` ahead of the shared clock. */
    setTimeOffset(index, seconds) {
      timeOffset.setX(index, seconds);
      timeOffset.needsUpdate = true;
    },
    /** The clock every unit shares, in seconds. */
    update(seconds) {
      uniforms.vatTime.value = seconds;
    },
    dispose() {
      geometry.dispose();
      texture.dispose();
      for (const m of list) m.dispose();
    },
  };
}
