// three-vat (manthrax/three-vat, served from an out-of-tree checkout at /three-vat/, none of
// its code in this repository) playing a `--format vat3` export: its VATLoader reads the
// folder `<root><name>/` (`<name>_data.json`, `_mesh.glb`, `_pos/_rot/_col.exr`) and its
// VATEffect patches the mesh's material, here a flat white one, drawn with harness.js's
// renderer and camera so the masks compare with harness.js's source playback. Loaded as
// index.html?modules=harness,three-vat, with /three-vat/ mounted (three-vat.test.mjs).
import * as THREE from 'three';
import { VATLoader } from '/three-vat/VATLoader.js';
import { VATEffect } from '/three-vat/VATEffect.js';
import { readMask } from './mask.js';

let unit = null;

/** VATLoader.load(root, name), then VATEffect on the first mesh it found (the loader's choice). */
async function loadThreeVat(root, name) {
  unit?.scene.clear();
  const assets = await VATLoader.load(root, name);
  assets.mesh.material = new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });
  const effect = new VATEffect(assets);
  const scene = new THREE.Scene();
  scene.add(assets.scene);
  unit = { assets, effect, scene };
  const config = assets.vatConfig.staticInputs;
  const textures = Object.fromEntries(
    Object.entries(assets.textures).map(([k, t]) => [k, { width: t.image?.width, height: t.image?.height, type: t.type }]),
  );
  return {
    type: assets.type,
    frameCount: config.frameCount,
    frameRate: config.frameRate,
    isTexHdr: config.isTexHdr,
    useCompressedNormals: config.useCompressedNormals,
    activePixelsRatio: config.activePixelsRatio?.toArray() ?? null,
    vertices: assets.mesh.geometry.attributes.position.count,
    hasVatUv1: Boolean(assets.mesh.geometry.attributes.vatUv1),
    halfFloat: THREE.HalfFloatType,
    textures,
  };
}

/**
 * Frame `frame` through the player's own clock: playback off and its display frame set
 * (`setEnabled(false)`, `u_displayFrame`), or, with `time`, playback on at that time.
 */
function renderThreeVat({ frame = 0, time = null } = {}) {
  const { effect, scene } = unit;
  if (time === null) {
    effect.setEnabled(false);
    effect.uniforms.u_displayFrame.value = frame;
    effect.update(0);
  } else {
    effect.setEnabled(true);
    effect.update(time);
  }
  const renderer = window.harness.renderer();
  renderer.render(scene, window.harness.camera());
  return readMask(renderer.getContext(), renderer.domElement.width);
}

window.threeVat = { loadThreeVat, renderThreeVat, revision: THREE.REVISION };
