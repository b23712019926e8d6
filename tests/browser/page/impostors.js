// Impostors (tests/browser/impostors.test.mjs): the harness's loaded bake and its
// impostor (`vatbake impostor`, loaded by loadImpostor) drawn through the runtime
// package, one unit at a clip time, from a camera direction, at a distance: the VAT mesh
// (VatMesh) and the impostor (ImpostorMesh), as white-on-black silhouettes and unlit in
// their base colours, on a virtual screen `screen` pixels tall of which the canvas is
// the centre crop. Returns the silhouettes' IoU and the colours' mean ΔE (CIE 1976,
// over the pixels both cover), with the masks for the artifacts.
import * as THREE from 'three';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { VatMesh, ImpostorMesh, loadImpostor, patchImpostorMaterial } from '@vatbake/three';
import { readMask } from './mask.js';

let state = null;

async function load(url, { blendViews = true, parallax = 3, alphaTest = null } = {}) {
  const renderer = window.harness.renderer();
  const vat = window.harness.vat();
  state?.dispose();
  const loader = new KTX2Loader().detectSupport(renderer);
  const impostor = await loadImpostor(url, { loader });
  const white = () => new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });
  const basic = vat.materials.map((m) => new THREE.MeshBasicMaterial({ map: m.map ?? null, color: m.color ?? 0xffffff, side: THREE.DoubleSide }));
  const vatMask = new VatMesh(vat, 1, { material: white() });
  const vatColour = new VatMesh(vat, 1, { material: basic.length ? basic : white() });
  const impMask = new ImpostorMesh(impostor, 1, { material: white(), blendViews, parallax });
  patchImpostorMaterial(impMask.material, impMask.uniforms, { lit: false, colour: false });
  const impColour = new ImpostorMesh(impostor, 1, { material: white(), blendViews, parallax });
  for (const m of [vatMask, vatColour, impMask, impColour]) m.frustumCulled = false;
  if (alphaTest !== null) for (const m of [impMask, impColour]) m.material.alphaTest = alphaTest;
  state = {
    vat, impostor, vatMask, vatColour, impMask, impColour,
    dispose() {
      for (const m of [vatMask, vatColour, impMask, impColour]) m.dispose();
      impostor.dispose();
    },
  };
  return { gpuBytes: impostor.gpuBytes, sidecar: impostor.sidecar };
}

/** sRGB bytes → CIE L*a*b* (D65). */
function lab(r, g, b) {
  const lin = (c) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const [R, G, B] = [lin(r), lin(g), lin(b)];
  const x = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/**
 * The unit on clip `clip` at `time` s, from azimuth and elevation (degrees, the unit's
 * front +Z at azimuth 0) at `distance` (the impostor's switch by default).
 */
function compare({ clip, time, azimuth, elevation, distance, screen = 1080 }) {
  const renderer = window.harness.renderer();
  const size = renderer.domElement.width;
  const d = state.vat.description;
  const center = new THREE.Vector3(...d.positions.center);
  const radius = new THREE.Vector3(...d.positions.half_extent).length();
  const a = THREE.MathUtils.degToRad(azimuth);
  const e = THREE.MathUtils.degToRad(elevation);
  const direction = new THREE.Vector3(Math.sin(a) * Math.cos(e), Math.sin(e), Math.cos(a) * Math.cos(e));
  const camera = new THREE.PerspectiveCamera(60, 1, Math.max(distance - 2 * radius, distance * 1e-3), distance + 2 * radius);
  camera.position.copy(center).addScaledVector(direction, distance);
  camera.lookAt(center);
  camera.setViewOffset(screen, screen, (screen - size) / 2, (screen - size) / 2, size, size);
  camera.updateMatrixWorld(true);
  const gl = renderer.getContext();
  const draw = (mesh) => {
    mesh.update(time);
    mesh.setClip(0, clip, { start: 0 });
    const scene = new THREE.Scene().add(mesh);
    renderer.render(scene, camera);
    scene.remove(mesh);
  };
  const pixels = () => {
    const rgba = new Uint8Array(size * size * 4);
    gl.readPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
    return rgba;
  };
  draw(state.vatMask);
  const vatMask = readMask(gl, size);
  const vatCovered = pixels();
  draw(state.impMask);
  const impMask = readMask(gl, size);
  const impCovered = pixels();
  draw(state.vatColour);
  const vatRgb = pixels();
  draw(state.impColour);
  const impRgb = pixels();
  let inter = 0;
  let union = 0;
  let vatOnly = 0;
  let sum = 0;
  const channel = [0, 0, 0];
  for (let i = 0; i < size * size; i++) {
    const x = vatCovered[i * 4] > 127;
    const y = impCovered[i * 4] > 127;
    if (x || y) union++;
    if (x && !y) vatOnly++;
    if (!(x && y)) continue;
    inter++;
    const p = lab(vatRgb[i * 4], vatRgb[i * 4 + 1], vatRgb[i * 4 + 2]);
    const q = lab(impRgb[i * 4], impRgb[i * 4 + 1], impRgb[i * 4 + 2]);
    sum += Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    for (let k = 0; k < 3; k++) channel[k] += Math.abs(vatRgb[i * 4 + k] - impRgb[i * 4 + k]);
  }
  return {
    iou: union ? inter / union : 0,
    union,
    vatOnly,
    deltaE: inter ? sum / inter : 0,
    channel: channel.map((c) => (inter ? c / inter : 0)),
    vatMask,
    impMask,
  };
}

window.impostors = { load, compare };
