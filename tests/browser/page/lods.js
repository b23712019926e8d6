// Levels of detail (tests/browser/lods.test.mjs): the harness's loaded bake drawn at one
// of its levels (`vatbake bake --lods`, loaded by loadVat beside the rest mesh) through
// the runtime package's VatMesh, one stored row, as a white-on-black silhouette seen
// from `distance` by a 60° camera on a virtual screen `screen` pixels tall (the
// description's switch is stated at 1080), of which the canvas is the centre crop.
import * as THREE from 'three';
import { VatMesh } from '@vatbake/three';
import { readMask } from './mask.js';

let cache = { vat: null, meshes: [] };

function meshOf(level) {
  // harness.vat() is a copy of what loadVat gave: its description identifies the bake.
  const vat = window.harness.vat();
  if (cache.vat?.description !== vat.description) {
    for (const m of cache.meshes) m?.dispose();
    cache = { vat, meshes: [] };
  }
  if (!cache.meshes[level]) {
    if (level > vat.lods.length) throw new Error(`the bake has ${vat.lods.length} levels of detail, not ${level}`);
    const geometry = level === 0 ? vat.geometry : vat.lods[level - 1].geometry;
    const material = new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });
    const mesh = new VatMesh(vat, 1, { material, geometry, interpolate: false });
    mesh.frustumCulled = false;
    cache.meshes[level] = mesh;
  }
  return cache.meshes[level];
}

/** Level `level` on clip `clipName`'s stored row `row`, from `distance` (model units). */
function render(level, clipName, row, distance, { screen = 1080 } = {}) {
  const renderer = window.harness.renderer();
  const size = renderer.domElement.width;
  const vat = window.harness.vat();
  const d = vat.description;
  const clip = vat.clips.find((c) => c.name === clipName);
  const mesh = meshOf(level);
  mesh.update(row / clip.rate);
  mesh.setClip(0, clipName, { start: 0 });
  const scene = new THREE.Scene().add(mesh);
  const center = new THREE.Vector3(...d.positions.center);
  const direction = new THREE.Vector3(0.8, 0.45, 1).normalize();
  const radius = new THREE.Vector3(...d.positions.half_extent).length();
  const camera = new THREE.PerspectiveCamera(60, 1, Math.max(distance - 2 * radius, distance * 1e-3), distance + 2 * radius);
  camera.position.copy(center).addScaledVector(direction, distance);
  camera.lookAt(center);
  camera.setViewOffset(screen, screen, (screen - size) / 2, (screen - size) / 2, size, size);
  camera.updateMatrixWorld(true);
  renderer.render(scene, camera);
  scene.remove(mesh);
  return readMask(renderer.getContext(), size);
}

window.lods = { render };
