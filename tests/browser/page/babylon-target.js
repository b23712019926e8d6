// A `--target babylon` bake played in Babylon.js the way docs/targets/babylon.md tells a
// user to: the rest GLB through Babylon's own glTF loader (default coordinate mode, the
// scene left-handed, so the loader's __root__ node converts), the KTX2's level read with
// ktx-parse and fzstd, the delta undone (@vatbake/three/delta), a RawTexture of RGBA16UI
// texels, and a ShaderMaterial whose shaders are the doc's own (node hands them over,
// cut from the Markdown). Runs beside harness.js, whose three.js camera it copies
// (mirrored into Babylon's space by the __root__ node's matrix) and whose source playback
// the silhouettes are compared with (window.babylonTarget).
import * as BABYLON from '@babylonjs/core/index.js';
import '@babylonjs/loaders/glTF/2.0/index.js';
import { read } from 'ktx-parse';
import { decompress } from 'fzstd';
import { undoDelta } from '@vatbake/three/delta';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { readMask } from './mask.js';

// Babylon's glTF loader decodes EXT_meshopt_compression (`--rest-mesh meshopt`) with a
// global MeshoptDecoder that it expects a script from its CDN to define; the page gives
// it three.js's copy of meshoptimizer's decoder and a local script with nothing in it.
window.MeshoptDecoder = MeshoptDecoder;
BABYLON.MeshoptCompression.Configuration.decoder.url = new URL('./meshopt-global.js', import.meta.url).href;

let size = 0;
let engine = null;
let state = null;

function init(canvasSize) {
  size = canvasSize;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  document.body.appendChild(canvas);
  engine = new BABYLON.Engine(canvas, false, { preserveDrawingBuffer: true, antialias: false, stencil: false });
  return { webgl: engine.webGLVersion, version: BABYLON.Engine.Version };
}

/** The KTX2's level 0 as u16 texels a shader reads: docs/targets/babylon.md, "Settings and container". */
async function readTexels(url, description) {
  const ktx = read(new Uint8Array(await (await fetch(url)).arrayBuffer()));
  const level = ktx.levels[0].levelData;
  const bytes = ktx.supercompressionScheme === 2 ? decompress(level) : level.slice();
  const texels = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  undoDelta(texels, description);
  return { texels, vkFormat: ktx.vkFormat, width: ktx.pixelWidth, height: ktx.pixelHeight, supercompression: ktx.supercompressionScheme };
}

async function load({ base, description, vertexSource, fragmentSource }) {
  state?.texture.dispose();
  state?.scene.dispose();
  const scene = new BABYLON.Scene(engine); // left-handed: Babylon's default
  scene.clearColor = new BABYLON.Color4(0, 0, 0, 1);
  const target = description.target;
  // Silhouettes need no images: skip the rest GLB's materials (the shader replaces them).
  const skip = BABYLON.SceneLoader.OnPluginActivatedObservable.add((loader) => {
    if (loader.name === 'gltf') loader.skipMaterials = true;
  });
  const rest = await BABYLON.SceneLoader.ImportMeshAsync('', base, description.mesh.file, scene);
  BABYLON.SceneLoader.OnPluginActivatedObservable.remove(skip);
  const root = rest.meshes.find((m) => m.name === '__root__');

  const ktx = await readTexels(base + target.texture, description);
  const texture = new BABYLON.RawTexture(ktx.texels, ktx.width, ktx.height,
    BABYLON.Engine.TEXTUREFORMAT_RGBA_INTEGER, scene,
    false, // no mipmaps
    false, // invertY false: row 0 is the file's top row
    BABYLON.Texture.NEAREST_SAMPLINGMODE,
    BABYLON.Engine.TEXTURETYPE_UNSIGNED_SHORT);
  texture.wrapU = texture.wrapV = BABYLON.Texture.CLAMP_ADDRESSMODE;

  const material = new BABYLON.ShaderMaterial('vat', scene, { vertexSource, fragmentSource }, {
    attributes: ['position', 'uv2'],
    uniforms: ['world', 'viewProjection', 'vatCenter', 'vatHalfExtent', 'vatRow'],
    samplers: ['vat'],
  });
  material.setTexture('vat', texture);
  material.setVector3('vatCenter', BABYLON.Vector3.FromArray(target.center));
  material.setVector3('vatHalfExtent', BABYLON.Vector3.FromArray(target.half_extent));
  material.setFloat('vatRow', 0);
  material.backFaceCulling = false;
  const meshes = rest.meshes.filter((m) => m.getTotalVertices() > 0);
  for (const m of meshes) m.material = material; // frustum culling left on: the rest mesh's box covers every frame

  // harness.js's three.js camera, in Babylon's space: glTF point p shows at root·p.
  root.computeWorldMatrix(true);
  const toBabylon = root.getWorldMatrix();
  const three = window.harness.camera();
  const e = three.matrixWorld.elements;
  const eye = BABYLON.Vector3.TransformCoordinates(new BABYLON.Vector3(e[12], e[13], e[14]), toBabylon);
  const ahead = BABYLON.Vector3.TransformCoordinates(new BABYLON.Vector3(e[12] - e[8], e[13] - e[9], e[14] - e[10]), toBabylon);
  const camera = new BABYLON.UniversalCamera('camera', eye, scene);
  camera.upVector = BABYLON.Vector3.TransformNormal(new BABYLON.Vector3(e[4], e[5], e[6]), toBabylon);
  camera.setTarget(ahead);
  camera.fov = (three.fov * Math.PI) / 180;
  camera.fovMode = BABYLON.Camera.FOVMODE_VERTICAL_FIXED;
  camera.minZ = three.near;
  camera.maxZ = three.far;

  state = { scene, material, meshes, root, texture, texels: ktx.texels, description, vertexSource };
  await scene.whenReadyAsync();
  return {
    vkFormat: ktx.vkFormat,
    supercompression: ktx.supercompression,
    width: ktx.width,
    height: ktx.height,
    maxTexel: ktx.texels.reduce((m, v) => (v > m ? v : m), 0),
    internalFormat: texture.getInternalTexture().format,
    textureType: texture.getInternalTexture().type,
    meshes: meshes.length,
    parentedUnderRoot: meshes.every((m) => { let p = m.parent; while (p && p !== root) p = p.parent; return p === root; }),
    rootScaling: root.scaling.asArray(),
    rootRotation: root.rotationQuaternion?.asArray() ?? null,
    rightHanded: scene.useRightHandedSystem,
  };
}

/**
 * The unit at texture row `row` (clip.row + frame), as a mask. `convert: false` (a
 * control) takes the __root__ node's conversion away for this frame: glTF's numbers
 * drawn as they are in the left-handed scene, the unit mirrored.
 */
async function render(row, { convert = true } = {}) {
  const { root } = state;
  const kept = [root.scaling.clone(), root.rotationQuaternion.clone()];
  if (!convert) {
    root.scaling.set(1, 1, 1);
    root.rotationQuaternion = BABYLON.Quaternion.Identity();
  }
  state.material.setFloat('vatRow', row);
  await state.scene.whenReadyAsync();
  state.scene.render();
  const mask = readMask(engine._gl, size);
  [root.scaling, root.rotationQuaternion] = kept;
  return mask;
}

// The probe: the doc's vertex shader with its main() renamed and called from one that
// keeps what it computed (world and viewProjection are identities here, so gl_Position is
// the decoded position) and puts vertex i on pixel i of a float target, as a point.
const PROBE_MAIN = `
uniform float probeWidth, probeHeight;
out vec3 vProbePosition;
void main() {
    vatMain();
    vProbePosition = gl_Position.xyz;
    int w = int(probeWidth);
    vec2 pixel = vec2(float(gl_VertexID % w), float(gl_VertexID / w)) + 0.5;
    gl_Position = vec4(pixel / vec2(probeWidth, probeHeight) * 2.0 - 1.0, 0.0, 1.0);
    gl_PointSize = 1.0;
}
`;
const PROBE_FRAGMENT = `precision highp float;
in vec3 vNormal;
in vec3 vProbePosition;
uniform float probeNormal;
void main() { gl_FragColor = vec4(probeNormal > 0.5 ? normalize(vNormal) : vProbePosition, 1.0); }
`;

/**
 * Every texel through the doc's vertex shader in Babylon: one point per (point, row), its
 * uv2 the rest mesh's TEXCOORD_1 (`uv1`, from harness.js's three.js load of the same GLB)
 * moved down `row` texels, drawn into an RGBA32F RenderTargetTexture, read back and
 * compared with the decode formula in float64 on the u16 texels. Returns the worst
 * position error in 16-bit steps of its axis and the worst normal angle in degrees.
 * `eightBit` (a control) draws an 8-bit copy of the texels instead.
 */
async function decodeCheck({ eightBit = false } = {}) {
  const { scene, description: d, texels, vertexSource } = state;
  // The control: what an 8-bit copy of the texels would hold (each u16's high byte, widened).
  const texture = eightBit
    ? new BABYLON.RawTexture(texels.map((t) => (t >> 8) * 257), d.texture.width, d.texture.height, BABYLON.Engine.TEXTUREFORMAT_RGBA_INTEGER, scene,
      false, false, BABYLON.Texture.NEAREST_SAMPLINGMODE, BABYLON.Engine.TEXTURETYPE_UNSIGNED_SHORT)
    : state.texture;
  const uv1 = window.harness.vat().mesh.geometry.attributes.uv1.array;
  const { points, rows } = d;
  const { width: texWidth, height: texHeight } = d.texture;
  const n = points * rows;
  const w = 2048;
  const h = Math.ceil(n / w);
  const uv2 = new Float32Array(n * 2);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < points; i++) {
      uv2[(r * points + i) * 2] = uv1[i * 2];
      uv2[(r * points + i) * 2 + 1] = uv1[i * 2 + 1] + r / texHeight;
    }
  }
  const probe = new BABYLON.Mesh('probe', scene);
  probe.isUnIndexed = true;
  const data = new BABYLON.VertexData();
  data.positions = new Float32Array(n * 3);
  data.uvs2 = uv2;
  data.applyToMesh(probe);
  probe.alwaysSelectAsActiveMesh = true;
  const material = new BABYLON.ShaderMaterial('probe', scene, {
    vertexSource: vertexSource.replace(/void\s+main\s*\(\s*\)/, 'void vatMain()') + PROBE_MAIN,
    fragmentSource: PROBE_FRAGMENT,
  }, {
    attributes: ['position', 'uv2'],
    uniforms: ['world', 'viewProjection', 'vatCenter', 'vatHalfExtent', 'vatRow', 'probeWidth', 'probeHeight', 'probeNormal'],
    samplers: ['vat'],
  });
  material.setTexture('vat', texture);
  material.setVector3('vatCenter', BABYLON.Vector3.FromArray(d.target.center));
  material.setVector3('vatHalfExtent', BABYLON.Vector3.FromArray(d.target.half_extent));
  material.setFloat('vatRow', 0);
  material.setMatrix('world', BABYLON.Matrix.Identity());
  material.setMatrix('viewProjection', BABYLON.Matrix.Identity());
  material.setFloat('probeWidth', w);
  material.setFloat('probeHeight', h);
  material.pointsCloud = true;
  material.backFaceCulling = false;
  material.disableDepthWrite = true;
  probe.material = material;
  const target = new BABYLON.RenderTargetTexture('probe', { width: w, height: h }, scene, {
    generateMipMaps: false, type: BABYLON.Constants.TEXTURETYPE_FLOAT, samplingMode: BABYLON.Texture.NEAREST_SAMPLINGMODE, generateDepthBuffer: false,
  });
  target.renderList = [probe];
  target.clearColor = new BABYLON.Color4(0, 0, 0, 0);
  const read = async (normal) => {
    material.setFloat('probeNormal', normal ? 1 : 0);
    for (const started = performance.now(); !material.isReady(probe); ) {
      if (performance.now() - started > 10000) {
        throw new Error(`the probe material is not ready after 10 s: ${material.getEffect()?.getCompilationError() || 'no compilation error reported'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    target.render();
    return new Float32Array((await target.readPixels()).buffer.slice(0));
  };
  const gpuPosition = await read(false);
  const gpuNormal = await read(true);
  target.dispose();
  probe.dispose();
  material.dispose();
  if (eightBit) texture.dispose();

  let missing = 0;
  let worstSteps = 0;
  let worstDeg = 0;
  const c = d.target.center;
  const e = d.target.half_extent;
  for (let v = 0; v < n; v++) {
    const g = v * 4;
    if (gpuPosition[g + 3] !== 1 || gpuNormal[g + 3] !== 1) {
      missing++;
      continue;
    }
    const r = Math.floor(v / points);
    const i = v - r * points;
    const o = ((Math.round(uv1[i * 2 + 1] * texHeight) + r) * texWidth + Math.floor(uv1[i * 2] * texWidth)) * 4;
    for (let a = 0; a < 3; a++) {
      const expected = ((texels[o + a] / 65535) * 2 - 1) * e[a] + c[a];
      const step = (2 * e[a]) / 65535 || 1;
      worstSteps = Math.max(worstSteps, Math.abs(gpuPosition[g + a] - expected) / step);
    }
    let ox = ((texels[o + 3] >> 8) / 255) * 2 - 1;
    let oy = ((texels[o + 3] & 255) / 255) * 2 - 1;
    const nz = 1 - Math.abs(ox) - Math.abs(oy);
    if (nz < 0) [ox, oy] = [(1 - Math.abs(oy)) * (ox >= 0 ? 1 : -1), (1 - Math.abs(ox)) * (oy >= 0 ? 1 : -1)];
    const len = Math.hypot(ox, oy, nz);
    const dot = (gpuNormal[g] * ox + gpuNormal[g + 1] * oy + gpuNormal[g + 2] * nz) / len / Math.hypot(gpuNormal[g], gpuNormal[g + 1], gpuNormal[g + 2]);
    worstDeg = Math.max(worstDeg, (Math.acos(Math.min(1, Math.max(-1, dot))) * 180) / Math.PI);
  }
  return { samples: n, missing, worstSteps, worstDeg };
}

/**
 * docs/targets/babylon.md's recipe for levels of detail: the level's GLB loaded as the rest
 * mesh, given the same ShaderMaterial and registered with `rest.addLODLevel(distance,
 * levelMesh)`. A 60° camera looks at the unit's bounding sphere from `factor × distance`
 * (along one fixed direction); Babylon picks the mesh (`getLOD`). At each of `rows`, the
 * masks with the level registered and without it (level 0) from the same camera.
 */
async function lodCheck({ base, file, distance, rows, factor }) {
  const { scene, material, meshes } = state;
  const skip = BABYLON.SceneLoader.OnPluginActivatedObservable.add((loader) => {
    if (loader.name === 'gltf') loader.skipMaterials = true;
  });
  const loaded = await BABYLON.SceneLoader.ImportMeshAsync('', base, file, scene);
  BABYLON.SceneLoader.OnPluginActivatedObservable.remove(skip);
  const level = loaded.meshes.find((m) => m.getTotalVertices() > 0);
  level.material = material;
  const rest = meshes[0];
  rest.addLODLevel(distance, level);
  rest.computeWorldMatrix(true);
  const center = rest.getBoundingInfo().boundingSphere.centerWorld.clone();
  const direction = new BABYLON.Vector3(0.8, 0.45, 1).normalize();
  const camera = new BABYLON.UniversalCamera('lod', center.add(direction.scale(distance * factor)), scene);
  camera.setTarget(center);
  camera.fov = Math.PI / 3;
  camera.fovMode = BABYLON.Camera.FOVMODE_VERTICAL_FIXED;
  camera.minZ = distance * factor * 0.01;
  camera.maxZ = distance * factor * 10;
  const kept = scene.activeCamera;
  scene.activeCamera = camera;
  camera.getViewMatrix(true); // updates camera.globalPosition, which getLOD measures from
  const picked = rest.getLOD(camera);
  const chosen = picked === level ? 'level' : picked === rest ? 'rest' : `other (${picked?.name}, ${center.subtract(camera.globalPosition).length()})`;
  const out = [];
  for (const row of rows) {
    material.setFloat('vatRow', row);
    await scene.whenReadyAsync();
    scene.render();
    const withLevel = readMask(engine._gl, size);
    rest.removeLODLevel(level);
    scene.render();
    const levelZero = readMask(engine._gl, size);
    rest.addLODLevel(distance, level);
    out.push({ row, withLevel, levelZero });
  }
  rest.removeLODLevel(level);
  for (const m of loaded.meshes) m.dispose();
  scene.activeCamera = kept;
  camera.dispose();
  return { chosen, masks: out };
}

window.babylonTarget = { init, load, render, decodeCheck, lodCheck };
