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
import { readMask } from './mask.js';

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

  state = { scene, material, meshes, root };
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

window.babylonTarget = { init, load, render };
