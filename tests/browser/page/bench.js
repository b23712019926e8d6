// The playback benchmark (scripts/bench-three.sh, docs/PERFORMANCE.md): N units of one
// model, either as one VatMesh (@vatbake/three; 'vat-nearest': one row, no blend) or as N SkinnedMesh clones of the source,
// each with its own AnimationMixer (three.js's usual way), at spread-out times. A frame
// is the per-frame update plus render plus a 1-pixel readPixels, which waits for the
// GL work to finish; window.bench.run gives the frame times in milliseconds.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { loadVat, VatMesh } from '@vatbake/three';

const W = 640;
const H = 360;

function grid(count, spacing) {
  const cols = Math.ceil(Math.sqrt(count * (W / H)));
  const rows = Math.ceil(count / cols);
  return Array.from({ length: count }, (_, i) => new THREE.Vector3(((i % cols) - (cols - 1) / 2) * spacing, 0, (Math.floor(i / cols) - (rows - 1) / 2) * spacing));
}

function cameraFor(count, spacing, height) {
  const cols = Math.ceil(Math.sqrt(count * (W / H)));
  const width = cols * spacing;
  const camera = new THREE.PerspectiveCamera(40, W / H, 1, 1);
  const distance = (width / 2 / Math.tan(THREE.MathUtils.degToRad(20)) / camera.aspect) * 1.2;
  camera.position.set(0, distance * 0.6, distance);
  camera.near = distance / 50;
  camera.far = distance * 4;
  camera.updateProjectionMatrix();
  camera.lookAt(0, height / 2, 0);
  return camera;
}

async function setup({ kind, count, descriptionUrl, sourceUrl }) {
  const renderer = new THREE.WebGLRenderer({ antialias: false });
  renderer.setPixelRatio(1);
  renderer.setSize(W, H);
  document.body.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x404050, 1.5), new THREE.DirectionalLight(0xffffff, 2));
  const started = performance.now();
  let update;
  let spacing;
  let height;
  if (kind === 'vat' || kind === 'vat-nearest') {
    const loader = new KTX2Loader().detectSupport(renderer);
    const vat = await loadVat(descriptionUrl, { loader, renderer });
    const d = vat.description;
    spacing = 2.2 * Math.max(...d.positions.half_extent);
    height = 2 * d.positions.half_extent[1];
    const units = new VatMesh(vat, count, { interpolate: kind === 'vat' });
    const m = new THREE.Matrix4();
    grid(count, spacing).forEach((p, i) => {
      units.setMatrixAt(i, m.makeTranslation(p.x, p.y, p.z));
      units.setClip(i, i % vat.clips.length, { start: -((i * 0.618034) % 1) * 3 });
    });
    units.instanceMatrix.needsUpdate = true;
    scene.add(units);
    update = (t) => units.update(t);
  } else {
    const gltf = await new GLTFLoader().loadAsync(sourceUrl);
    const box = new THREE.Box3().setFromObject(gltf.scene);
    const size = box.getSize(new THREE.Vector3());
    spacing = 1.1 * Math.max(size.x, size.y, size.z); // as the VAT grid: 2.2 × the largest half extent
    height = size.y;
    const mixers = [];
    grid(count, spacing).forEach((p, i) => {
      const unit = SkeletonUtils.clone(gltf.scene);
      unit.position.copy(p);
      const mixer = new THREE.AnimationMixer(unit);
      mixer.clipAction(gltf.animations[i % gltf.animations.length]).play();
      mixer.setTime(((i * 0.618034) % 1) * 3);
      mixers.push(mixer);
      scene.add(unit);
    });
    let last = 0;
    update = (t) => {
      const dt = t - last;
      last = t;
      for (const mixer of mixers) mixer.update(dt);
    };
  }
  const camera = cameraFor(count, spacing, height);
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
  const dispose = () => {
    renderer.dispose();
    renderer.forceContextLoss();
    renderer.domElement.remove();
  };
  return { setupMs: performance.now() - started, frame, dispose, info: () => ({ calls: renderer.info.render.calls, triangles: renderer.info.render.triangles }) };
}

// Every kind of one N is set up side by side (one WebGL context each) and their frames
// alternate, so the load of a shared machine falls on all kinds alike.
let states = {};
window.bench = {
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
