// The page: a dropped or chosen GLB is baked in a Worker (worker.mjs), its summary,
// warnings and three files shown, and the bake played through @vatbake/three beside
// three.js's own SkinnedMesh playing the source. A bake that does not answer in
// TIMEOUT_MS has its Worker ended and says so: never a page waiting forever.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { fromParts, VatMesh } from '@vatbake/three';

const TIMEOUT_MS = 120_000;
const WASM_URL = new URL('../vatbake.wasm', import.meta.url).href;
const $ = (id) => document.getElementById(id);

function bakeInWorker(name, bytes) {
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' });
    const timer = setTimeout(() => {
      worker.terminate();
      resolve({ error: { code: 101, kind: 'internal', message: `the bake did not finish in ${TIMEOUT_MS / 1000} s; stopped` } });
    }, TIMEOUT_MS);
    const done = (answer) => {
      clearTimeout(timer);
      worker.terminate();
      resolve(answer);
    };
    worker.onmessage = ({ data }) => done(data);
    worker.onerror = (e) => done({ error: { code: 101, kind: 'internal', message: `the bake's worker failed: ${e.message}` } });
    worker.postMessage({ wasmUrl: WASM_URL, name, bytes }, [bytes]);
  });
}

async function sha256(bytes) {
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function view(canvas) {
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
  renderer.setSize(canvas.clientWidth, canvas.clientHeight, false);
  const scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 3));
  const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 10000);
  return { renderer, scene, camera };
}

function frame(camera, object) {
  const box = new THREE.Box3().setFromObject(object);
  const size = box.getSize(new THREE.Vector3()).length() || 1;
  const center = box.getCenter(new THREE.Vector3());
  camera.position.copy(center).add(new THREE.Vector3(0, size * 0.2, size * 1.2));
  camera.near = size / 100;
  camera.far = size * 10;
  camera.updateProjectionMatrix();
  camera.lookAt(center);
}

let playing = null;
async function play(sourceBytes, files, name) {
  playing?.stop();
  const base = name.replace(/\.(glb|gltf)$/i, '');
  const description = JSON.parse(new TextDecoder().decode(files[`${base}.vat.json`]));
  const left = view($('vat'));
  const right = view($('skinned'));
  const ktx2 = new KTX2Loader().detectSupport(left.renderer);
  const texture = await new Promise((ok, fail) => ktx2.parse(files[`${base}.vat.ktx2`].slice().buffer, ok, fail));
  const rest = await new GLTFLoader().parseAsync(files[`${base}.rest.glb`].slice().buffer, '');
  const vat = fromParts(description, rest, texture, { renderer: left.renderer });
  const mesh = new VatMesh(vat, 1);
  mesh.setMatrixAt(0, new THREE.Matrix4());
  const clip = description.clips?.[0]?.name;
  if (clip) mesh.setClip(0, clip);
  left.scene.add(mesh);
  frame(left.camera, rest.scene);
  const source = await new GLTFLoader().parseAsync(sourceBytes.slice().buffer, '');
  right.scene.add(source.scene);
  const mixer = new THREE.AnimationMixer(source.scene);
  if (source.animations[0]) mixer.clipAction(source.animations[0]).play();
  frame(right.camera, source.scene);
  let last = null;
  const tick = (ms) => {
    const t = ms / 1000;
    mixer.update(last === null ? 0 : t - last);
    last = t;
    mesh.update(t);
    left.renderer.render(left.scene, left.camera);
    right.renderer.render(right.scene, right.camera);
  };
  left.renderer.setAnimationLoop(tick);
  playing = { stop: () => left.renderer.setAnimationLoop(null) };
  return clip ?? '(no clip)';
}

async function bakeFile(file) {
  for (const id of ['summary', 'warnings', 'error', 'downloads']) $(id).textContent = '';
  document.body.dataset.state = 'baking';
  $('status').textContent = `Baking ${file.name}…`;
  const source = new Uint8Array(await file.arrayBuffer());
  const started = performance.now();
  const answer = await bakeInWorker(file.name, source.slice().buffer);
  const ms = Math.round(performance.now() - started);
  const warnings = (answer.stderr ?? '').split('\n').filter((l) => l.startsWith('warning:'));
  $('warnings').textContent = warnings.join('\n');
  if (answer.error) {
    const e = answer.error;
    $('error').textContent = `error ${e.code} (${e.kind}): ${e.message}`;
    $('status').textContent = `${file.name}: the bake failed (exit code ${e.code}).`;
    document.body.dataset.errorCode = String(e.code);
    document.body.dataset.state = 'error';
    return;
  }
  const r = answer.report;
  $('summary').textContent = `${r.points} points × ${r.rows} rows in ${r.clips} clips; texture ${r.width}×${r.height}, ${r.texture_bytes} bytes; baked in ${ms} ms`;
  document.body.dataset.bakeMs = String(ms);
  for (const [name, bytes] of Object.entries(answer.files)) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes]));
    a.download = name;
    a.textContent = `${name} (${bytes.length} bytes)`;
    a.dataset.sha256 = await sha256(bytes);
    $('downloads').append(a, ' ');
  }
  $('status').textContent = `${file.name}: baked.`;
  document.body.dataset.state = 'baked';
  try {
    const clip = await play(source, answer.files, file.name.replace(/[^\w.-]+/g, '_'));
    document.body.dataset.playing = clip;
  } catch (e) {
    $('error').textContent = `playback: ${e.message}`;
    document.body.dataset.playing = `failed: ${e.message}`;
  }
}

$('file').addEventListener('change', () => $('file').files[0] && bakeFile($('file').files[0]));
$('drop').addEventListener('dragover', (e) => e.preventDefault());
$('drop').addEventListener('drop', (e) => {
  e.preventDefault();
  const file = e.dataTransfer.files[0];
  if (file) bakeFile(file);
});
