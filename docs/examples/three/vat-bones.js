// Play a vatbake bone bake (--mode bones) in three.js: the rest GLB (bind pose, with
// JOINTS_0/WEIGHTS_0) drawn as one InstancedMesh whose vertex shader skins every vertex
// with joint matrices read from the float KTX2 texture (docs/FORMAT.md, "Bone bakes").
// Needs `three` (0.187), its addons and @vatbake/three (for the rest mesh's merge and
// bounds); the texture is R32G32B32A32_SFLOAT, which core WebGL2 reads with texelFetch
// (no float-filtering extension needed).
//
//   const bones = await loadBoneVat('bake/Fox.vat.json', { renderer, count: 100 });
//   scene.add(bones.mesh);
//   bones.setClip('Run');               // every unit; or bones.setClip('Walk', 7) for unit 7
//   bones.setTimeOffset(7, 0.25);
//   renderer.setAnimationLoop((ms) => { bones.update(ms / 1000); renderer.render(scene, camera); });
import { InstancedBufferAttribute, InstancedMesh, Matrix4, NearestFilter } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { mergeRestMeshes, setBakedBounds } from '@vatbake/three';

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

/** Make a built-in material draw the skinned positions and normals (as @vatbake/three's material patch does for vertex bakes). */
export function applyBones(material, uniforms, { eight = false } = {}) {
  material.defines = { ...material.defines, ...(eight ? { BONES_EIGHT: '' } : {}) };
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', `#include <common>\n${BONES_GLSL}`)
      .replace('void main() {', 'void main() {\n\tvec3 bonePosition, boneNormal;\n\tboneSample(bonePosition, boneNormal);')
      .replace('#include <beginnormal_vertex>', '#include <beginnormal_vertex>\n\tobjectNormal = boneNormal;')
      .replace('#include <begin_vertex>', '#include <begin_vertex>\n\ttransformed = bonePosition;');
  };
  material.customProgramCacheKey = () => `vatbake-bones${eight ? '-8' : ''}`;
  material.needsUpdate = true;
  return material;
}

let ktx2Loader = null;

/**
 * Load a bone bake: its description, the rest GLB and the float KTX2 it names.
 * Options like @vatbake/three's loadVat: { renderer, count = 1, material = null }.
 */
export async function loadBoneVat(descriptionUrl, { renderer, count = 1, material = null } = {}) {
  if (!renderer) throw new Error('vat-bones: loadBoneVat needs { renderer }');
  const base = new URL(descriptionUrl, document.baseURI);
  const response = await fetch(base);
  if (!response.ok) throw new Error(`vat-bones: ${base}: HTTP ${response.status}`);
  const description = await response.json();
  if (!description.bones || description.texture.vk_format !== 109) {
    throw new Error(`vat-bones: ${base} is not a bone bake (bake with --mode bones); play vertex bakes with @vatbake/three's loadVat`);
  }
  ktx2Loader ??= new KTX2Loader();
  ktx2Loader.detectSupport(renderer);
  const [gltf, texture] = await Promise.all([
    new GLTFLoader().loadAsync(new URL(description.mesh.file, base).href),
    ktx2Loader.loadAsync(new URL(description.texture.file, base).href),
  ]);
  texture.minFilter = texture.magFilter = NearestFilter;
  texture.generateMipmaps = false;
  texture.flipY = false;
  texture.needsUpdate = true;

  const uniforms = { boneTexture: { value: texture }, vatTime: { value: 0 } };
  const { geometry, materials } = mergeRestMeshes(gltf.scene);
  if (!geometry.attributes.skinIndex) throw new Error('vat-bones: the rest GLB has no JOINTS_0');
  const clipInfo = new InstancedBufferAttribute(new Float32Array(count * 4), 4);
  const timeOffset = new InstancedBufferAttribute(new Float32Array(count), 1);
  geometry.setAttribute('clipInfo', clipInfo);
  geometry.setAttribute('vatTimeOffset', timeOffset);
  // The rest mesh is in bind space; the description's bounds cover every frame.
  setBakedBounds(geometry, description);

  const eight = description.bones.influences === 8;
  const drawn = material ? applyBones(material, uniforms, { eight }) : materials.map((m) => applyBones(m.clone(), uniforms, { eight }));
  const mesh = new InstancedMesh(geometry, drawn, count);
  mesh.name = description.mesh.file;
  const identity = new Matrix4();
  for (let i = 0; i < count; i++) mesh.setMatrixAt(i, identity);

  const clips = new Map(description.clips.map((clip) => [clip.name, clip]));
  const setClip = (name, index = null) => {
    const clip = clips.get(name);
    if (!clip) throw new Error(`vat-bones: no clip "${name}" (have: ${[...clips.keys()].join(', ')})`);
    const [from, to] = index === null ? [0, count] : [index, index + 1];
    for (let i = from; i < to; i++) clipInfo.setXYZW(i, clip.row, clip.rows, clip.rate, clip.loop ? 1 : 0);
    clipInfo.needsUpdate = true;
  };
  setClip(description.clips[0].name);
  return {
    mesh,
    description,
    uniforms,
    texture,
    setClip,
    setTimeOffset(index, seconds) {
      timeOffset.setX(index, seconds);
      timeOffset.needsUpdate = true;
    },
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
