// @vatbake/three: play vatbake bakes (vertex animation textures) in three.js.
//
//   import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
//   import { loadVat, VatMesh } from '@vatbake/three';
//
//   const loader = new KTX2Loader().detectSupport(renderer);
//   const vat = await loadVat('bake/Fox.vat.json', { loader, renderer });
//   const crowd = new VatMesh(vat, 1000);              // an InstancedMesh
//   crowd.setMatrixAt(7, matrix);                       // place units as usual
//   crowd.setClip(7, 'Run', { start: 0.25, speed: 1.2 });
//   crowd.setCrossfade(7, 'Walk', 0.5);                 // half Run, half Walk
//   crowd.castShadow = true;                            // shadows move with the units
//   scene.add(crowd);
//   renderer.setAnimationLoop((ms) => { crowd.update(ms / 1000); renderer.render(scene, camera); });
//
// A bake with levels of detail (`vatbake bake --lods`) plays as a VatCrowd (src/crowd.js):
//   const crowd = new VatCrowd(vat, 10000);             // one instanced draw per level
//   crowd.update(ms / 1000, camera);                    // each unit at its level for this camera
//
// An impostor (`vatbake impostor`) is the crowd's last level, drawn as quads:
//   const impostor = await loadImpostor('bake/Fox.impostor.json', { loader });
//   const crowd = new VatCrowd(vat, 10000, { impostor });
//
// A bone bake (`vatbake bake --mode bones`) plays with loadBoneVat (src/bones.js).
export { loadVat, fromParts, checkDescription, prepareTexture, restGeometry, mergeRestMeshes, setBakedBounds } from './load.js';
export { VatMesh, patchMaterial } from './mesh.js';
export { VatCrowd, lodThresholds, chooseLevel } from './crowd.js';
export { VAT_GLSL, patchVertexShader } from './glsl.js';
export { loadImpostor, impostorFromParts, checkImpostor, ImpostorMesh, impostorFrame, impostorView, impostorCell, impostorUniforms, patchImpostorMaterial, MAX_RINGS, IMPOSTOR_ALPHA_TEST } from './impostor.js';
export { undoDelta } from './delta.js';
export { clipTable, clipFrame, clipRows, findClip } from './clips.js';
export { sampleSocket, socketOnUnit, rootMotionAt } from './attach.js';
export { loadBoneVat, boneVatFromParts, checkBoneDescription, patchBoneMaterial, patchBoneVertexShader, BONES_GLSL } from './bones.js';
