// Runs in headless Chromium. A bone bake drawn two ways by each engine, with one camera
// per engine, as white-on-black silhouettes handed to node (window.bones):
//   three.js:   @vatbake/three's loadBoneVat  vs  GLTFLoader + AnimationMixer (SkinnedMesh) of the source;
//   Babylon.js: the rest GLB through Babylon's glTF loader with its own BakedVertexAnimationManager
//               fed the --format babylon JSON by VertexAnimationBaker.loadBakedVertexDataFromJSON
//               vs Babylon's own skeletal playback (AnimationGroup) of the source.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { loadBoneVat, patchBoneMaterial } from '@vatbake/three';
import * as BABYLON from '@babylonjs/core/index.js';
import '@babylonjs/loaders/glTF/2.0/index.js';
import { readMask as readMaskOf } from './mask.js';

let size;
const three = { renderer: null, loader: null, camera: null, bones: null, bonesScene: null, source: null, reference: null };
const babylon = { engine: null, scene: null, camera: null, vat: null, manager: null, source: null, groups: [] };

function init(canvasSize) {
  size = canvasSize;
  three.renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
  three.renderer.setPixelRatio(1);
  three.renderer.setSize(size, size);
  three.renderer.setClearColor(0x000000, 1);
  document.body.appendChild(three.renderer.domElement);
  three.loader = new KTX2Loader().detectSupport(three.renderer);
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  document.body.appendChild(canvas);
  babylon.engine = new BABYLON.Engine(canvas, false, { preserveDrawingBuffer: true, antialias: false, stencil: false });
  babylon.canvas = canvas;
  return { babylonWebGL: babylon.engine.webGLVersion, babylonVersion: BABYLON.Engine.Version, threeRevision: THREE.REVISION };
}

/** Mask of a WebGL context's drawing buffer (mask.js). */
const readMask = (gl) => readMaskOf(gl, size);

/** Camera position and target framing the description's bounds (glTF axes), front-right above. */
function framing(description) {
  const c = new THREE.Vector3(...description.positions.center);
  const radius = Math.max(new THREE.Vector3(...description.positions.half_extent).length(), 1e-6);
  const fov = 30;
  const distance = (radius / Math.sin(THREE.MathUtils.degToRad(fov / 2))) * 1.02;
  const eye = c.clone().addScaledVector(new THREE.Vector3(0.8, 0.45, 1).normalize(), distance);
  return { c, eye, fov, near: Math.max(distance - 2 * radius, distance * 1e-3), far: distance + 2 * radius };
}

const white = () => new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });

async function loadThree({ descriptionUrl, sourceUrl, referenceUrl = null }) {
  three.bones = await loadBoneVat(descriptionUrl, { loader: three.loader, renderer: three.renderer, count: 1, material: white() });
  // Another bake of the same model (the float32 one), whose skinned positions the GPU
  // gives beside this one's (bonePositions).
  three.reference = referenceUrl ? await loadBoneVat(referenceUrl, { loader: three.loader, renderer: three.renderer, count: 1, material: white() }) : null;
  three.bonesScene = new THREE.Scene();
  three.bonesScene.add(three.bones.mesh);
  const f = framing(three.bones.description);
  three.camera = new THREE.PerspectiveCamera(f.fov, 1, f.near, f.far);
  three.camera.position.copy(f.eye);
  three.camera.lookAt(f.c);
  three.camera.updateMatrixWorld(true);
  const gltf = await new GLTFLoader().loadAsync(sourceUrl);
  gltf.scene.traverse((o) => {
    if (o.isMesh) {
      o.material = white();
      o.frustumCulled = false;
    }
  });
  three.source = { gltf, mixer: new THREE.AnimationMixer(gltf.scene), key: null };
  return { description: three.bones.description };
}

function renderThreeBones(clipName, t) {
  three.bones.setClip(clipName, 0);
  three.bones.update(t);
  three.renderer.render(three.bonesScene, three.camera);
  return readMask(three.renderer.getContext());
}

/**
 * The skinned position of every vertex of a bone bake as @vatbake/three's shader computes
 * it: the rest mesh drawn as points, vertex i to pixel i of a float render target, the
 * bone decode patched in as for any material. Cached per bake.
 */
function positionReader(bones) {
  if (bones.reader) return bones.reader;
  const n = bones.mesh.geometry.attributes.position.count;
  const width = Math.min(n, 1024);
  const height = Math.ceil(n / width);
  const target = new THREE.WebGLRenderTarget(width, height, { type: THREE.FloatType, minFilter: THREE.NearestFilter, magFilter: THREE.NearestFilter, depthBuffer: false });
  const material = new THREE.ShaderMaterial({
    uniforms: { readSize: { value: new THREE.Vector2(width, height) } },
    vertexShader: `#include <common>
uniform vec2 readSize;
varying vec3 vSkinned;
void main() {
#include <begin_vertex>
  vSkinned = transformed;
  float id = float(gl_VertexID);
  gl_Position = vec4((mod(id, readSize.x) + 0.5) / readSize.x * 2.0 - 1.0, (floor(id / readSize.x) + 0.5) / readSize.y * 2.0 - 1.0, 0.0, 1.0);
  gl_PointSize = 1.0;
}`,
    fragmentShader: 'varying vec3 vSkinned;\nvoid main() { gl_FragColor = vec4(vSkinned, 1.0); }',
  });
  const { description } = bones;
  patchBoneMaterial(material, bones.uniforms, { eight: description.bones.influences === 8, quat16: description.bones.encoding === 'quat16', path: bones.path });
  const points = new THREE.Points(bones.mesh.geometry, material);
  points.frustumCulled = false;
  const scene = new THREE.Scene().add(points);
  bones.reader = { n, width, height, target, scene, camera: new THREE.OrthographicCamera() };
  return bones.reader;
}

/** Every vertex's skinned position, clip `clipName` at `t` s, of this bake (or the reference): base64 of n × 3 floats. */
function bonePositions(which, clipName, t) {
  const bones = which === 'reference' ? three.reference : three.bones;
  const r = positionReader(bones);
  bones.setClip(clipName, 0);
  bones.update(t);
  three.renderer.setRenderTarget(r.target);
  three.renderer.setClearColor(0x000000, 0);
  three.renderer.clear();
  three.renderer.render(r.scene, r.camera);
  const rgba = new Float32Array(r.width * r.height * 4);
  three.renderer.readRenderTargetPixels(r.target, 0, 0, r.width, r.height, rgba);
  three.renderer.setRenderTarget(null);
  three.renderer.setClearColor(0x000000, 1);
  const xyz = new Float32Array(r.n * 3);
  for (let i = 0; i < r.n; i++) xyz.set(rgba.subarray(i * 4, i * 4 + 3), i * 3);
  let binary = '';
  const bytes = new Uint8Array(xyz.buffer);
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { path: bones.path, positions: btoa(binary) };
}

function renderThreeSource(sourceIndices, t) {
  const { gltf, mixer } = three.source;
  const key = sourceIndices.join();
  if (three.source.key !== key) {
    mixer.stopAllAction();
    for (const i of sourceIndices) {
      const action = mixer.clipAction(gltf.animations[i]);
      action.setLoop(THREE.LoopOnce, 1);
      action.clampWhenFinished = true;
      action.play();
    }
    three.source.key = key;
  }
  for (const i of sourceIndices) mixer.existingAction(gltf.animations[i]).reset();
  mixer.setTime(t);
  gltf.scene.updateMatrixWorld(true);
  three.renderer.render(gltf.scene, three.camera);
  return readMask(three.renderer.getContext());
}

const babylonWhite = (scene) => {
  const m = new BABYLON.StandardMaterial('white', scene);
  m.disableLighting = true;
  m.emissiveColor = new BABYLON.Color3(1, 1, 1);
  m.backFaceCulling = false;
  return m;
};

async function loadBabylon({ restUrl, babylonUrl, sourceUrl, description }) {
  const scene = new BABYLON.Scene(babylon.engine);
  scene.clearColor = new BABYLON.Color4(0, 0, 0, 1);
  babylon.scene = scene;
  // Babylon is left-handed: its glTF loader's __root__ node (half turn about y, then z × −1)
  // puts glTF's (x, y, z) at (−x, y, z).
  const f = framing(description);
  const camera = new BABYLON.UniversalCamera('camera', new BABYLON.Vector3(-f.eye.x, f.eye.y, f.eye.z), scene);
  camera.fov = THREE.MathUtils.degToRad(f.fov);
  camera.fovMode = BABYLON.Camera.FOVMODE_VERTICAL_FIXED;
  camera.minZ = f.near;
  camera.maxZ = f.far;
  camera.setTarget(new BABYLON.Vector3(-f.c.x, f.c.y, f.c.z));
  babylon.camera = camera;

  // Silhouettes need no images (and a fixture may lack its external ones): skip materials.
  const skip = BABYLON.SceneLoader.OnPluginActivatedObservable.add((loader) => {
    if (loader.name === 'gltf') loader.skipMaterials = true;
  });
  const split = (url) => [url.slice(0, url.lastIndexOf('/') + 1), url.slice(url.lastIndexOf('/') + 1)];
  const rest = await BABYLON.SceneLoader.ImportMeshAsync('', ...split(restUrl), scene);
  const vatMeshes = rest.meshes.filter((m) => m.getTotalVertices() > 0);
  const skeleton = rest.skeletons[0];
  const baker = new BABYLON.VertexAnimationBaker(scene, skeleton);
  const json = await (await fetch(babylonUrl)).text();
  const vertexData = baker.loadBakedVertexDataFromJSON(json);
  const texture = baker.textureFromBakedVertexData(vertexData);
  const manager = new BABYLON.BakedVertexAnimationManager(scene);
  manager.texture = texture;
  for (const m of vatMeshes) {
    m.material = babylonWhite(scene);
    m.bakedVertexAnimationManager = manager;
    m.alwaysSelectAsActiveMesh = true;
  }
  babylon.vat = { root: rest.meshes[0], meshes: vatMeshes, skeleton };
  babylon.manager = manager;

  const source = await BABYLON.SceneLoader.ImportMeshAsync('', ...split(sourceUrl), scene);
  for (const m of source.meshes) {
    if (m.getTotalVertices() > 0) {
      m.material = babylonWhite(scene);
      m.alwaysSelectAsActiveMesh = true;
    }
  }
  BABYLON.SceneLoader.OnPluginActivatedObservable.remove(skip);
  for (const g of source.animationGroups) g.stop();
  babylon.source = { root: source.meshes[0], groups: source.animationGroups };
  await scene.whenReadyAsync();
  return {
    bones: skeleton.bones.length,
    textureWidth: texture.getSize().width,
    textureHeight: texture.getSize().height,
    floats: vertexData.length,
    groups: source.animationGroups.map((g) => ({ name: g.name, from: g.from, to: g.to })),
  };
}

const glOf = () => babylon.engine._gl;

async function renderBabylonBones(row) {
  babylon.source.root.setEnabled(false);
  babylon.vat.root.setEnabled(true);
  // One frame, start = end = row: the manager's shader then reads exactly that row at time 0.
  babylon.manager.setAnimationParameters(row, row, 0, 1);
  babylon.manager.time = 0;
  await babylon.scene.whenReadyAsync();
  babylon.scene.render();
  return readMask(glOf());
}

async function renderBabylonSource(groupIndices, t) {
  babylon.vat.root.setEnabled(false);
  babylon.source.root.setEnabled(true);
  for (const g of babylon.source.groups) g.stop();
  for (const i of groupIndices) {
    const g = babylon.source.groups[i];
    g.start(false, 1.0, g.from, g.to);
    g.pause();
    // Babylon's glTF animation groups count 60 frames per second of the file's time.
    g.goToFrame(Math.min(g.from + t * 60, g.to));
  }
  await babylon.scene.whenReadyAsync();
  babylon.scene.render();
  return readMask(glOf());
}

window.bones = { init, loadThree, renderThreeBones, renderThreeSource, bonePositions, loadBabylon, renderBabylonBones, renderBabylonSource };
