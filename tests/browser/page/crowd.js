// The crowd benchmark (tests/browser/crowd-bench.mjs, docs/PERFORMANCE.md): N units of a
// bake with levels of detail spread over a field under an RTS camera, drawn either as one
// VatMesh (LODs off: every unit at level 0) or as a VatCrowd (LODs on: each unit at the
// level its size on this canvas allows, at 1 px). A frame is the update (for the crowd:
// the bucketing) plus render plus a 1-pixel readPixels, which waits for the GL work.
// 'impostor': the same VatCrowd with the bake's impostor (`vatbake impostor`) as its
// last level, switched at one cell texel per screen pixel of this canvas.
import * as THREE from 'three';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { loadImpostor, loadVat, VatCrowd, VatMesh } from '@vatbake/three';

const W = 1280;
const H = 720;

// Bytes of the buffers a mesh uploads: its geometry's attributes and index (shared ones once).
function bufferBytes(meshes) {
  const seen = new Set();
  let bytes = 0;
  const add = (a) => {
    if (!a || seen.has(a.array)) return;
    seen.add(a.array);
    bytes += a.array.byteLength;
  };
  for (const m of meshes) {
    for (const a of Object.values(m.geometry.attributes)) add(a);
    add(m.geometry.index);
    add(m.instanceMatrix);
  }
  return bytes;
}

async function setup({ kind, count, descriptionUrl, impostorUrl = null, spacing: spacingFactor }) {
  const renderer = new THREE.WebGLRenderer({ antialias: false });
  renderer.setPixelRatio(1);
  renderer.setSize(W, H);
  document.body.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x404050, 1.5), new THREE.DirectionalLight(0xffffff, 2));
  const started = performance.now();
  const loader = new KTX2Loader().detectSupport(renderer);
  const crowd = kind !== 'lods-off';
  const vat = await loadVat(descriptionUrl, { loader, renderer, lods: crowd });
  const impostor = kind === 'impostor' ? await loadImpostor(impostorUrl, { loader }) : null;
  const d = vat.description;
  const spacing = spacingFactor * 2 * Math.max(...d.positions.half_extent);
  const units = crowd ? new VatCrowd(vat, count, { screenHeight: H, pixels: 1, impostor }) : new VatMesh(vat, count);
  // A square field, units on a jittered grid, facing anywhere.
  const side = Math.ceil(Math.sqrt(count));
  const m = new THREE.Matrix4();
  const q = new THREE.Quaternion();
  const one = new THREE.Vector3(1, 1, 1);
  for (let i = 0; i < count; i++) {
    const jx = ((i * 0.618034) % 1) - 0.5;
    const jz = ((i * 0.414214) % 1) - 0.5;
    const x = ((i % side) - (side - 1) / 2 + 0.5 * jx) * spacing;
    const z = (Math.floor(i / side) - (side - 1) / 2 + 0.5 * jz) * spacing;
    q.setFromAxisAngle(new THREE.Vector3(0, 1, 0), ((i * 0.754877) % 1) * 2 * Math.PI);
    units.setMatrixAt(i, m.compose(new THREE.Vector3(x, 0, z), q, one));
    units.setClip(i, i % vat.clips.length, { start: -((i * 0.618034) % 1) * 3 });
  }
  scene.add(units);
  // The RTS camera: low over the field's near edge, looking 45° down into it, so the
  // nearest units fill a fifth of the screen and the far ones a few pixels.
  const width = side * spacing;
  const camera = new THREE.PerspectiveCamera(45, W / H, 1, 1);
  const height = width * 0.1;
  camera.position.set(0, height, width / 2 + height * 0.2);
  camera.lookAt(0, 0, width / 2 - height);
  camera.near = height / 20;
  camera.far = width * 2;
  camera.updateProjectionMatrix();
  const distance = height;
  const update = crowd ? (t) => units.update(t, camera) : (t) => units.update(t);
  const pixel = new Uint8Array(4);
  const gl = renderer.getContext();
  const frame = (t) => {
    const a = performance.now();
    update(t);
    const b = performance.now();
    renderer.render(scene, camera);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    return { frame: performance.now() - a, update: b - a };
  };
  frame(0); // compile, upload
  const info = () => {
    const meshes = crowd ? units.levels : [units];
    const points = crowd ? units.verticesPerFrame : count * d.points;
    return {
      calls: renderer.info.render.calls,
      triangles: renderer.info.render.triangles,
      vertices: points,
      levelCounts: crowd ? [...units.levelCounts] : [count],
      textureBytes: d.texture.width * d.texture.height * 8 + (impostor?.gpuBytes ?? 0),
      bufferBytes: bufferBytes(meshes),
      distance,
    };
  };
  const dispose = () => {
    renderer.dispose();
    renderer.forceContextLoss();
    renderer.domElement.remove();
  };
  return { setupMs: performance.now() - started, frame, dispose, info };
}

// Both kinds are set up side by side (one WebGL context each) and their frames
// alternate, so the load of a shared machine falls on both alike.
let states = {};
window.crowd = {
  async setup(options) {
    states[options.kind] = await setup(options);
    return { setupMs: states[options.kind].setupMs };
  },
  /** `frames` rounds after one warm-up, each one frame of every kind, 1/60 s apart; times in ms. */
  run(frames) {
    const kinds = Object.keys(states);
    for (const k of kinds) states[k].frame(1 / 60);
    const out = Object.fromEntries(kinds.map((k) => [k, []]));
    for (let i = 0; i < frames; i++) for (const k of kinds) out[k].push(states[k].frame((i + 2) / 60));
    return Object.fromEntries(kinds.map((k) => [k, { frames: out[k], ...states[k].info() }]));
  },
  clear() {
    for (const s of Object.values(states)) s.dispose();
    states = {};
  },
};
