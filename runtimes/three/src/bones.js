// Bone bakes (`vatbake bake --mode bones`; docs/FORMAT.md, "Bone bakes"): the rest GLB
// (bind pose, with JOINTS_0/WEIGHTS_0) drawn as one InstancedMesh whose vertex shader
// skins every vertex with joint matrices read from the float KTX2 texture. The texture
// is R32G32B32A32_SFLOAT, which core WebGL2 reads with texelFetch (no float-filtering
// extension needed).
//
//   const loader = new KTX2Loader().detectSupport(renderer);
//   const bones = await loadBoneVat('bake/Fox.vat.json', { loader, renderer, count: 100 });
//   scene.add(bones.mesh);
//   bones.setClip('Run');               // every unit; or bones.setClip('Walk', 7) for unit 7
//   bones.setTimeOffset(7, 0.25);
//   renderer.setAnimationLoop((ms) => { bones.update(ms / 1000); renderer.render(scene, camera); });
import { FloatType, InstancedBufferAttribute, InstancedMesh, Matrix4, NearestFilter, RGBAFormat } from 'three';
import { fetchBake, mergeRestMeshes, setBakedBounds } from './load.js';
import { clipTable, findClip } from './clips.js';

/**
 * The skinning, as GLSL ES 3.00 for a vertex shader. Per vertex: position, normal,
 * skinIndex/skinWeight (JOINTS_0/WEIGHTS_0) and, with BONES_EIGHT, joints_1/weights_1.
 * Per instance: clipInfo = (first row, rows, rate, loop ? 1 : 0) and vatTimeOffset.
 * `boneSample(p, n)` gives the skinned model-space position and normal now: the two
 * rows around the time are each skinned, then blended.
 */
export const BONES_GLSL = /* glsl */ `
uniform highp sampler2D boneTexture;                   // RGBA32F: 4 texels (matrix columns) per joint
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

mat4 boneMatrix(float joint, int row) {
  int x = int(joint + 0.5) * 4;
  return mat4(texelFetch(boneTexture, ivec2(x, row), 0), texelFetch(boneTexture, ivec2(x + 1, row), 0),
              texelFetch(boneTexture, ivec2(x + 2, row), 0), texelFetch(boneTexture, ivec2(x + 3, row), 0));
}

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
  if (!description.bones || description.texture?.vk_format !== 109) {
    throw new Error(`vatbake: ${where} is not a bone bake (bake with --mode bones); play vertex bakes with loadVat`);
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
 * reference): boneTexture, vatTime. `eight`: the rest mesh has JOINTS_1/WEIGHTS_1.
 * @param {import('three').Material} material  patched in place and returned
 */
export function patchBoneMaterial(material, uniforms, { eight = false } = {}) {
  material.defines = { ...material.defines };
  if (eight) material.defines.BONES_EIGHT = '';
  else delete material.defines.BONES_EIGHT;
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = patchBoneVertexShader(shader.vertexShader);
  };
  material.customProgramCacheKey = () => `vatbake-bones${eight ? '-8' : ''}`;
  material.needsUpdate = true;
  return material;
}

/**
 * Load a bone bake: its description (`*.vat.json`), then the rest GLB and the float KTX2
 * it names (relative to the description's URL), as loadVat does for vertex bakes.
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
 */
export async function loadBoneVat(descriptionUrl, { loader, renderer, gltfLoader = null, ...options } = {}) {
  if (!loader) throw new Error('vatbake: loadBoneVat needs { loader }: a KTX2Loader (three/addons/loaders/KTX2Loader.js)');
  if (!renderer) throw new Error('vatbake: loadBoneVat needs { renderer } for the KTX2Loader');
  const { description, gltf, texture } = await fetchBake(descriptionUrl, checkBoneDescription, { loader, renderer, gltfLoader });
  return boneVatFromParts(description, gltf, texture, options);
}

/**
 * The part of loadBoneVat after the fetches: for callers that load the three files their
 * own way. Returns the units' InstancedMesh (`mesh`, every instance matrix the identity)
 * with the controls of every unit's clip and time.
 * @param {object} description  the parsed `*.vat.json`
 * @param {{ scene: import('three').Object3D }} gltf  GLTFLoader's result for the rest GLB
 * @param {import('three').DataTexture} texture  KTX2Loader's result for the KTX2
 */
export function boneVatFromParts(description, gltf, texture, { count = 1, material = null, clip = null } = {}) {
  checkBoneDescription(description);
  if (texture.type !== FloatType || texture.format !== RGBAFormat) {
    throw new Error('vatbake: expected KTX2Loader to give RGBA float texels (vkFormat 109, R32G32B32A32_SFLOAT)');
  }
  const { width, height } = description.texture;
  const { image } = texture;
  if (image.width !== width || image.height !== height || image.data.length !== width * height * 4) {
    throw new Error(`vatbake: the KTX2 is ${image.width}×${image.height} (${image.data.length / 4} texels), the description says ${width}×${height}: a texture from another bake?`);
  }
  // Never filter, mipmap or flip: neighbouring texels are other columns and other joints.
  texture.minFilter = NearestFilter;
  texture.magFilter = NearestFilter;
  texture.generateMipmaps = false;
  texture.flipY = false;
  texture.needsUpdate = true;

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
  const drawn = material ?? materials.map((m) => m.clone());
  const list = Array.isArray(drawn) ? drawn : [drawn];
  for (const m of list) patchBoneMaterial(m, uniforms, { eight });
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
