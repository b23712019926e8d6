// Loading a bake: the description, the rest GLB and the KTX2 it names, made ready for
// VatMesh (src/mesh.js): the texture prepared for a lossless upload, the geometry with
// bounds that cover every frame, and the clip table.
import {
  Box3,
  BufferAttribute,
  BufferGeometry,
  DataArrayTexture,
  NearestFilter,
  RGBAFormat,
  RGBAIntegerFormat,
  Sphere,
  UnsignedShortType,
  Vector2,
  Vector3,
} from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import { undoDelta } from './delta.js';
import { clipTable } from './clips.js';

/**
 * Check a parsed description is one this package plays; a clear error otherwise.
 * @param {object} description
 * @param {string} [where]  the URL or file, for the message
 */
export function checkDescription(description, where = 'the description') {
  if (description?.format !== 'vatbake.vat' || description.format_version !== 1) {
    throw new Error(`vatbake: ${where} is not a vatbake.vat format_version 1 description`);
  }
  const texture = description.texture ?? {};
  if (texture.container !== 'ktx2') {
    // Browsers' image decoders reduce a 16-bit PNG (--texture-format png) to 8 bits.
    throw new Error(`vatbake: ${where}: the texture is ${texture.container}; bake the default KTX2 for the web`);
  }
  if (description.bones) {
    throw new Error(`vatbake: ${where} is a bone bake (--mode bones): play it with loadBoneVat`);
  }
  if (texture.vk_format !== undefined && texture.vk_format !== 91) {
    throw new Error(`vatbake: ${where}: texture vkFormat ${texture.vk_format}; this player reads 91 (R16G16B16A16_UNORM)`);
  }
  const normals = description.normals ?? {};
  const mode = normals.mode ?? 'packed';
  if (mode === 'packed' && normals.encoding !== undefined && normals.encoding !== 'octahedral_8_8') {
    throw new Error(`vatbake: ${where}: normals encoded as ${normals.encoding}; this player reads octahedral_8_8`);
  }
  if (!['packed', 'separate', 'none'].includes(mode)) {
    throw new Error(`vatbake: ${where}: normals.mode "${mode}"; this player reads "packed" (the default), "separate" and "none"`);
  }
  if (!Array.isArray(description.clips) || description.clips.length === 0) {
    throw new Error(`vatbake: ${where} has no clips`);
  }
  return description;
}

/**
 * Choose the upload path and prepare KTX2Loader's DataTexture for it (in place):
 * 'norm16' keeps RGBA16 UNORM (needs EXT_texture_norm16), 'integer' uploads the same u16
 * values as RGBA16UI (core WebGL2), 'auto' takes norm16 where the extension exists.
 * Both are lossless. @returns {'norm16'|'integer'}
 */
export function prepareTexture(texture, renderer, path = 'auto') {
  const has = renderer?.extensions?.has('EXT_texture_norm16') ?? false;
  if (path === 'norm16' && !has) {
    throw new Error('vatbake: the norm16 path needs EXT_texture_norm16, which this WebGL context lacks');
  }
  if (!['auto', 'integer', 'norm16'].includes(path)) throw new Error(`vatbake: path "${path}": use auto, integer or norm16`);
  const norm16 = path === 'norm16' || (path === 'auto' && has);
  if (texture.type !== UnsignedShortType || texture.format !== RGBAFormat) {
    throw new Error('vatbake: expected KTX2Loader to give RGBA u16 texels (vkFormat 91, R16G16B16A16_UNORM)');
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

/**
 * Load a bake: its description (`*.vat.json`), then the rest GLB and the KTX2 it names
 * (relative to the description's URL). A delta-encoded texture (the default bake) is
 * undone on load, before the first upload.
 *
 * @param {string} descriptionUrl
 * @param {object} options
 * @param {import('three/addons/loaders/KTX2Loader.js').KTX2Loader} options.loader  three's KTX2Loader, as is
 * @param {import('three').WebGLRenderer} options.renderer  to pick the upload path (and for the loader's detectSupport)
 * @param {'auto'|'integer'|'norm16'} [options.path='auto']
 * @param {GLTFLoader} [options.gltfLoader]  for the rest GLB (default: a new GLTFLoader)
 * @param {boolean} [options.lods=true]  also load the levels of detail the description
 *   lists (`vatbake bake --lods`: `NAME.lodN.rest.glb`), for VatCrowd; false: level 0 only
 */
export async function loadVat(descriptionUrl, { loader, renderer, path = 'auto', gltfLoader = null, lods = true } = {}) {
  if (!loader) throw new Error('vatbake: loadVat needs { loader }: a KTX2Loader (three/addons/loaders/KTX2Loader.js)');
  if (!renderer) throw new Error('vatbake: loadVat needs { renderer } to choose the texture upload path');
  const { description, gltf, texture } = await fetchBake(descriptionUrl, checkDescription, { loader, renderer, gltfLoader });
  let levels = [];
  if (lods && description.lods?.length) {
    const base = new URL(descriptionUrl, globalThis.document?.baseURI ?? globalThis.location?.href);
    const load = gltfLoader ?? new GLTFLoader();
    levels = await Promise.all(description.lods.map((l) => load.loadAsync(new URL(l.file, base).href)));
  }
  return fromParts(description, gltf, texture, { renderer, path, lods: levels });
}

/**
 * The fetches of loadVat and loadBoneVat (src/bones.js): the description, checked by
 * `check(description, url)`, then the rest GLB and the KTX2 it names, relative to the
 * description's URL. @returns {Promise<{ description: object, gltf: object, texture: import('three').DataTexture }>}
 */
export async function fetchBake(descriptionUrl, check, { loader, renderer, gltfLoader = null }) {
  const base = new URL(descriptionUrl, globalThis.document?.baseURI ?? globalThis.location?.href);
  const response = await fetch(base);
  if (!response.ok) throw new Error(`vatbake: ${base}: HTTP ${response.status}`);
  const description = check(await response.json(), String(base));

  // vkFormat 91 and 109 take KTX2Loader's raw path (Zstandard in wasm): no Basis transcoder is fetched.
  if (!loader.workerConfig) loader.detectSupport(renderer);
  const [gltf, texture] = await Promise.all([
    (gltfLoader ?? new GLTFLoader()).loadAsync(new URL(description.mesh.file, base).href),
    loader.loadAsync(new URL(description.texture.file, base).href),
  ]);
  return { description, gltf, texture };
}

/**
 * The part of loadVat after the fetches: for callers that load the three files their own
 * way (a bundler, a worker, an asset pipeline).
 * @param {object} description  the parsed `*.vat.json`
 * @param {{ scene: import('three').Object3D }} gltf  GLTFLoader's result for the rest GLB
 * @param {import('three').DataTexture} texture  KTX2Loader's result for the KTX2
 * @param {object} [options]
 * @param {{ scene: import('three').Object3D }[]} [options.lods]  GLTFLoader's results for the
 *   description's `lods` files, in its order (all of them, or none)
 */
export function fromParts(description, gltf, ktx2Texture, { renderer, path = 'auto', lods: lodGltfs = [] } = {}) {
  checkDescription(description);
  const listed = description.lods ?? [];
  if (lodGltfs.length && lodGltfs.length !== listed.length) {
    throw new Error(`vatbake: ${lodGltfs.length} level-of-detail GLBs given, the description lists ${listed.length} (${listed.map((l) => l.file).join(', ')}): give all of them, in its order, or none`);
  }
  const { width } = description.texture;
  const logicalHeight = description.texture.height;
  const layers = description.texture.layers ?? 1;
  const normals = description.normals?.mode ?? 'packed';
  // KTX2 layers: the position layers, then (normals "separate") as many normal layers.
  const normalLayer = normals === 'separate' ? (description.normals.first_layer ?? layers) : 0;
  const layerCount = normals === 'separate' ? normalLayer + layers : layers;
  const height = description.texture.layer_height ?? logicalHeight;
  // three's KTX2Loader gives a KTX2's layers one after the other in one DataTexture of
  // one layer's size; the position layers in order are the logical texture row for row
  // (the last layer padded), and the normal layers likewise.
  const { image } = ktx2Texture;
  if (image.width !== width || image.height !== height || image.data.length !== width * height * layerCount * 4) {
    const what = layerCount > 1 ? `${layerCount} layers of ${width}×${height}` : `${width}×${height}`;
    throw new Error(`vatbake: the KTX2 is ${image.width}×${image.height} (${image.data.length / 4} texels), the description says ${what}: a texture from another bake?`);
  }
  if (logicalHeight > height * layers) {
    throw new Error(`vatbake: ${layers} layers of ${height} rows cannot hold the texture's ${logicalHeight} rows`);
  }
  const logicalTexels = width * logicalHeight * 4;
  undoDelta(image.data.subarray(0, logicalTexels), description);
  if (normalLayer) {
    const at = normalLayer * width * height * 4;
    undoDelta(image.data.subarray(at, at + logicalTexels), description);
  }
  let texture = ktx2Texture;
  if (layerCount > 1) {
    texture = new DataArrayTexture(image.data, width, height, layerCount);
    texture.type = ktx2Texture.type;
    texture.format = ktx2Texture.format;
    texture.normalized = ktx2Texture.normalized;
    ktx2Texture.dispose();
  }
  const texturePath = prepareTexture(texture, renderer, path);
  const { geometry, materials } = restGeometry(gltf.scene);
  setBakedBounds(geometry, description);
  // The levels of detail: the same texture through their own TEXCOORD_1, the same materials.
  const lods = lodGltfs.map((g, k) => {
    const level = restGeometry(g.scene).geometry;
    if (level.groups.length !== geometry.groups.length) {
      throw new Error(`vatbake: ${listed[k].file} has ${level.groups.length} primitives, ${description.mesh.file} ${geometry.groups.length}: a level from another bake?`);
    }
    setBakedBounds(level, description);
    return { level: k + 1, description: listed[k], points: listed[k].points, geometry: level };
  });

  // Shared by every material of this bake; VatMesh adds its own clock.
  const uniforms = {
    vatTexture: { value: texture },
    vatSize: { value: new Vector2(width, logicalHeight) },
    vatLayerHeight: { value: height },
    vatNormalLayer: { value: normalLayer },
    vatCenter: { value: new Vector3(...description.positions.center) },
    vatHalfExtent: { value: new Vector3(...description.positions.half_extent) },
  };
  return {
    description,
    texture,
    path: texturePath,
    layers,
    arrayTexture: layerCount > 1,
    normals,
    geometry,
    materials,
    lods,
    clips: clipTable(description),
    uniforms,
    dispose() {
      geometry.dispose();
      for (const l of lods) l.geometry.dispose();
      texture.dispose();
    },
  };
}

/**
 * The baked bounds (every frame of every clip) united with the rest pose, as the
 * geometry's box and sphere, so three's frustum culling (InstancedMesh's bounding sphere
 * over every instance matrix) can never cut a frame.
 */
export function setBakedBounds(geometry, description) {
  const c = new Vector3(...description.positions.center);
  const h = new Vector3(...description.positions.half_extent);
  const box = new Box3(c.clone().sub(h), c.clone().add(h));
  geometry.computeBoundingBox();
  box.union(geometry.boundingBox);
  geometry.boundingBox = box;
  geometry.boundingSphere = box.getBoundingSphere(new Sphere());
  return box;
}

/**
 * The rest GLB's one mesh as one geometry, with the TEXCOORD_1 (uv1) a vertex bake's
 * lookup needs: mergeRestMeshes, then that check.
 */
export function restGeometry(scene) {
  const merged = mergeRestMeshes(scene);
  if (!merged.geometry.attributes.uv1) throw new Error('vatbake: the rest GLB has no TEXCOORD_1');
  return merged;
}

/**
 * The rest GLB's one mesh as one geometry: its primitives share one vertex set (one
 * primitive per source material), so keep the attributes, join the index buffers and
 * give each primitive a group with its material. Vertex and bone bakes alike.
 */
export function mergeRestMeshes(scene) {
  const meshes = [];
  scene.traverse((o) => {
    if (o.isMesh) meshes.push(o);
  });
  if (meshes.length === 0) throw new Error('vatbake: the rest GLB has no mesh');
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
    if (!geometry) throw new Error('vatbake: the rest GLB primitives have different attributes');
  }
  return { geometry, materials };
}
