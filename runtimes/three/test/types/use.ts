// Compiled by test/package.test.mjs with TypeScript against index.d.ts and @types/three:
// the documented use of the package type-checks under "strict".
import * as THREE from 'three';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { loadBoneVat, loadImpostor, loadVat, VatCrowd, VatMesh } from '@vatbake/three';
async function main(renderer: THREE.WebGLRenderer) {
  const loader = new KTX2Loader().detectSupport(renderer);
  const vat = await loadVat('x.vat.json', { loader, renderer });
  const m = new VatMesh(vat, 10, { interpolate: false });
  m.setClip(0, 'Walk', { start: 1, speed: 2 }).setCrossfade(0, 'Run', 0.5);
  const s = m.getSocket(0, 'hand');
  const p: THREE.Vector3 = s.position;
  const r = m.getRootMotion(0);
  if (r) r.translation.add(p);
  m.update(1);
  const st = m.state(0);
  console.log(st.a.row0, vat.clips[0].loopRow, m.time);
}
main;
async function crowd(renderer: THREE.WebGLRenderer, camera: THREE.PerspectiveCamera) {
  const loader = new KTX2Loader().detectSupport(renderer);
  const vat = await loadVat('x.vat.json', { loader, renderer, lods: true });
  const c = new VatCrowd(vat, 1000, { pixels: 2, screenHeight: renderer.domElement.height, hysteresis: 0.15 });
  c.castShadow = true;
  c.setMatrixAt(0, new THREE.Matrix4()).setClip(0, 'Run', { speed: 1.5 });
  c.update(1, camera);
  const level0: THREE.InstancedMesh = c.levels[0];
  console.log(level0.count, c.levelCounts[1], c.verticesPerFrame, vat.lods[0]?.description.switch.distance);
  c.dispose();
}
crowd;
async function bones(renderer: THREE.WebGLRenderer) {
  const loader = new KTX2Loader().detectSupport(renderer);
  const b = await loadBoneVat('x.vat.json', { loader, renderer, count: 4, material: new THREE.MeshBasicMaterial() });
  b.setClip('Run');
  b.setClip(1, 3);
  b.setTimeOffset(3, 0.25);
  b.update(1);
  const mesh: THREE.InstancedMesh = b.mesh;
  console.log(mesh.count, b.description.bones.joints, b.clips[0].rate, b.uniforms.vatTime.value);
  b.dispose();
}
bones;
async function impostors(renderer: THREE.WebGLRenderer, camera: THREE.PerspectiveCamera) {
  const loader = new KTX2Loader().detectSupport(renderer);
  const vat = await loadVat('x.vat.json', { loader, renderer });
  const impostor = await loadImpostor('x.impostor.json', { loader });
  const c = new VatCrowd(vat, 1000, { impostor, blendViews: true });
  c.update(1, camera);
  const quads = c.impostor;
  if (quads) quads.setClip(0, 'Walk', { speed: 2 });
  console.log(impostor.gpuBytes, impostor.sidecar.views.elevations[0], c.levels.length);
}
impostors;
