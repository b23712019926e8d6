// Evaluate a SOURCE glTF with three.js (GLTFLoader + AnimationMixer) in node, and list
// its points in the order vatbake's contract defines. This is the independent reference.
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';
import { dracoLoader } from './draco-node.mjs';
import { isGlb, readGlb, writeGlb } from './glb.mjs';

/**
 * Keep only the scene that is baked (json.scene, else 0). GLTFLoader's associations map
 * (three object -> glTF node/mesh/primitive) is rebuilt per scene and ends up describing
 * only the last scene it loaded, so with one scene it is exact.
 */
function keepBakedSceneOnly(json) {
  if (!json.scenes || json.scenes.length === 0) return;
  json.scenes = [json.scenes[json.scene ?? 0]];
  json.scene = 0;
}

/**
 * Remove everything texture-related: node has no image decoder, and textures do not
 * influence positions or normals.
 */
function stripTextures(json) {
  delete json.images;
  delete json.textures;
  delete json.samplers;
  const dropTextureRefs = (obj) => {
    if (obj === null || typeof obj !== 'object') return;
    for (const key of Object.keys(obj)) {
      if (/Texture$/.test(key)) delete obj[key];
      else dropTextureRefs(obj[key]);
    }
  };
  for (const material of json.materials || []) dropTextureRefs(material);
}

/**
 * Turn a model file into a GLB ArrayBuffer that GLTFLoader.parse accepts without any
 * file or network access (GLTFLoader cannot fetch file:// in node). A .gltf's buffers
 * (external .bin files or data: URIs) are packed into the one BIN chunk; a GLB keeps its
 * BIN chunk. Only the baked scene is kept, and textures are stripped from the JSON.
 * Returns { data, json } where json is the unmodified source JSON.
 */
export function prepareForThree(file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  if (isGlb(bytes)) {
    const { json, bin } = readGlb(bytes);
    const source = structuredClone(json);
    keepBakedSceneOnly(json);
    stripTextures(json);
    return { data: writeGlb(json, bin), json: source };
  }
  const json = JSON.parse(new TextDecoder().decode(bytes));
  const source = structuredClone(json);
  const parts = (json.buffers || []).map((buffer) => loadBufferBytes(buffer, path.dirname(file)));
  // Lay the buffers end to end, each 16-byte aligned so every accessor stays aligned.
  const starts = [];
  let size = 0;
  for (const part of parts) {
    starts.push(size);
    size = (size + part.length + 15) & ~15;
  }
  const bin = new Uint8Array(size);
  parts.forEach((part, i) => bin.set(part, starts[i]));
  for (const view of json.bufferViews || []) {
    view.byteOffset = (view.byteOffset || 0) + starts[view.buffer];
    view.buffer = 0;
  }
  if (parts.length) json.buffers = [{ byteLength: size }];
  keepBakedSceneOnly(json);
  stripTextures(json);
  return { data: writeGlb(json, parts.length ? bin : null), json: source };
}

/** Bytes of a .gltf buffer: a data: URI or a file relative to the .gltf. */
function loadBufferBytes(buffer, dir) {
  if (buffer.uri === undefined) throw new Error('a .gltf buffer without uri');
  const bytes = buffer.uri.startsWith('data:')
    ? Buffer.from(buffer.uri.slice(buffer.uri.indexOf(',') + 1), 'base64')
    : fs.readFileSync(path.join(dir, decodeURIComponent(buffer.uri)));
  return new Uint8Array(bytes.buffer, bytes.byteOffset, buffer.byteLength);
}

/** Load a model with three's GLTFLoader. Resolves to { gltf, json }. */
export async function loadWithThree(file) {
  const { data, json } = prepareForThree(file);
  const loader = new GLTFLoader();
  loader.setMeshoptDecoder(MeshoptDecoder); // only used by EXT_meshopt_compression files
  loader.setDRACOLoader(dracoLoader()); // only used by KHR_draco_mesh_compression files
  const gltf = await new Promise((resolve, reject) => loader.parse(data, '', resolve, reject));
  // Primitives without NORMAL: three only switches to flat shading. The reference
  // normal for them is three's computeVertexNormals() on the rest mesh (area-weighted
  // per vertex; for unindexed triangles that is the flat face normal), then transformed
  // like any other normal.
  for (const scene of gltf.scenes) {
    scene.traverse((o) => {
      if (o.isMesh && !o.geometry.attributes.normal) {
        o.geometry.computeVertexNormals();
        o.userData.vatGeneratedNormals = true;
      }
    });
  }
  return { gltf, json };
}

/**
 * The points of the scene in the contract's order: root nodes of the scene
 * (json.scene, else 0) depth-first pre-order; at a node with a mesh, its primitives in
 * order, every vertex of each. Each entry maps a range of point indices to the three.js
 * mesh object that draws that (node, primitive).
 */
export function pointRanges(gltf, json) {
  const sceneIndex = json.scene ?? 0;
  // Object3D for each glTF node, found through the loader's own associations.
  const nodeObject = new Map();
  const primitiveObjects = new Map(); // node index -> [mesh per primitive]
  for (const [object, assoc] of gltf.parser.associations) {
    if (object.isObject3D && assoc.nodes !== undefined) nodeObject.set(assoc.nodes, object);
  }
  for (const [nodeIndex, object] of nodeObject) {
    const nodeDef = json.nodes[nodeIndex];
    if (nodeDef.mesh === undefined) continue;
    const count = json.meshes[nodeDef.mesh].primitives.length;
    const prims = new Array(count);
    // A single-primitive mesh IS the node object; otherwise the node is a Group whose
    // primitive meshes are children carrying {meshes, primitives} but no node index.
    const candidates = object.isMesh || object.isPoints || object.isLine ? [object] : object.children;
    for (const child of candidates) {
      const a = gltf.parser.associations.get(child);
      if (!a || a.primitives === undefined) continue;
      if (child !== object && a.nodes !== undefined) continue; // a child glTF node, not a primitive
      prims[a.primitives] = child;
    }
    for (let p = 0; p < count; p++) {
      if (!prims[p]) throw new Error(`three.js object for node ${nodeIndex} primitive ${p} not found`);
    }
    primitiveObjects.set(nodeIndex, prims);
  }

  const ranges = [];
  let start = 0;
  const visit = (nodeIndex) => {
    const nodeDef = json.nodes[nodeIndex];
    if (nodeDef.mesh !== undefined) {
      const prims = json.meshes[nodeDef.mesh].primitives;
      prims.forEach((prim, p) => {
        // three.js's SkinnedMesh reads only the first set; see skinAllSets().
        const weightSets = Object.keys(prim.attributes).filter((a) => /^JOINTS_\d+$/.test(a)).length;
        const object = primitiveObjects.get(nodeIndex)[p];
        const threeCount = object.geometry.attributes.position.count;
        // A Draco primitive has the decoder's points, which take precedence over the
        // accessor count (an old encoder may have written it before seams split points).
        const draco = prim.extensions?.KHR_draco_mesh_compression !== undefined;
        const count = draco ? threeCount : json.accessors[prim.attributes.POSITION].count;
        if (threeCount !== count) {
          throw new Error(`node ${nodeIndex} primitive ${p}: three.js has ${threeCount} vertices, accessor has ${count}`);
        }
        // GLTFLoader fills a target without NORMAL with the base normal, yet treats all
        // targets as deltas (morphTargetsRelative): that target would add w·normal. Only
        // targets that really have NORMAL deltas may move the normal.
        const normalTargets = (prim.targets || []).map((t) => t.NORMAL !== undefined);
        ranges.push({ node: nodeIndex, primitive: p, start, count, object, normalTargets, skinned: nodeDef.skin !== undefined, weightSets });
        start += count;
      });
    }
    for (const child of nodeDef.children || []) visit(child);
  };
  for (const root of json.scenes[sceneIndex].nodes) visit(root);
  return { ranges, points: start, scene: gltf.scene }; // the only scene left (keepBakedSceneOnly)
}

/** Remember every object's rest TRS and morph weights so each clip can start from rest. */
export function captureRest(root) {
  const rest = [];
  root.traverse((o) => {
    rest.push({
      o,
      p: o.position.clone(),
      q: o.quaternion.clone(),
      s: o.scale.clone(),
      w: o.morphTargetInfluences ? [...o.morphTargetInfluences] : null,
    });
  });
  return () => {
    for (const r of rest) {
      r.o.position.copy(r.p);
      r.o.quaternion.copy(r.q);
      r.o.scale.copy(r.s);
      if (r.w) r.o.morphTargetInfluences.splice(0, r.w.length, ...r.w);
    }
  };
}

/**
 * Pose the scene for one clip at time t, following three's documented usage:
 * a fresh mixer per clip, LoopOnce + clampWhenFinished so t == duration does not wrap.
 * `clips` are THREE.AnimationClip objects (several are played together when a baked
 * clip combines several source animations).
 */
export function poser(scene, restore) {
  let mixer = null;
  let current = null;
  return (clips, t) => {
    const key = clips.map((c) => c.uuid).join();
    if (current !== key) {
      if (mixer) {
        mixer.stopAllAction();
        mixer.uncacheRoot(scene);
      }
      restore();
      mixer = new THREE.AnimationMixer(scene);
      for (const clip of clips) {
        const action = mixer.clipAction(clip);
        action.setLoop(THREE.LoopOnce, 1);
        action.clampWhenFinished = true;
        action.play();
      }
      current = key;
    }
    mixer.setTime(t);
    // glTF rotations are unit quaternions, but files round them (SimpleSkin stores 0.707
    // for √½: |q| = 0.99985). three.js interpolates the keys as given (fine) and then
    // builds the matrix from the non-unit result, which also scales by |q|² (a 3e-4 error
    // on SimpleSkin). A rotation is meant: normalise, as vatbake does after its slerp.
    scene.traverse((o) => o.quaternion.normalize());
    scene.updateMatrixWorld(true);
  };
}

const _v = new THREE.Vector3();
const _n = new THREE.Vector3();
const _m = new THREE.Matrix4();
const _blend = new THREE.Matrix4();
const _normalMatrix = new THREE.Matrix3();

/**
 * World-space positions (and, where the primitive has NORMAL, normals) of all points of
 * the posed scene. Positions come straight from three's getVertexPosition + matrixWorld.
 * Normals are computed here with three's math: morphed normal, then the inverse
 * transpose of the (weight-blended) skinning matrix or of the node's world matrix.
 */
export function worldPoints(ranges, points, { normals = false } = {}) {
  const pos = new Float64Array(points * 3);
  const nor = normals ? new Float64Array(points * 3).fill(NaN) : null;
  for (const r of ranges) {
    const mesh = r.object;
    const geometry = mesh.geometry;
    const normalAttr = geometry.attributes.normal;
    const morphNormals = geometry.morphAttributes.normal;
    const influences = mesh.morphTargetInfluences;
    for (let i = 0; i < r.count; i++) {
      // three's SkinnedMesh returns mesh-local coordinates (it multiplies by
      // bindMatrixInverse = matrixWorld^-1 in attached mode); matrixWorld brings them back.
      (r.weightSets > 1 && mesh.isSkinnedMesh ? skinAllSets(mesh, i, r.weightSets, _v) : mesh.getVertexPosition(i, _v)).applyMatrix4(mesh.matrixWorld);
      const k = (r.start + i) * 3;
      pos[k] = _v.x;
      pos[k + 1] = _v.y;
      pos[k + 2] = _v.z;
      if (!nor || !normalAttr) continue;
      _n.fromBufferAttribute(normalAttr, i);
      if (morphNormals && influences) {
        for (let t = 0; t < morphNormals.length; t++) {
          if (influences[t] !== 0 && r.normalTargets[t]) _n.addScaledVector(_v.fromBufferAttribute(morphNormals[t], i), influences[t]);
        }
      }
      if (mesh.isSkinnedMesh) {
        // Same blend three uses for positions: sum of w * boneWorld * boneInverse (bindMatrix is identity for glTF).
        _blend.set(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        for (const [bone, w] of skinInfluences(geometry, i, r.weightSets)) {
          _m.multiplyMatrices(mesh.skeleton.bones[bone].matrixWorld, mesh.skeleton.boneInverses[bone]);
          for (let e = 0; e < 16; e++) _blend.elements[e] += w * _m.elements[e];
        }
        _normalMatrix.getNormalMatrix(_blend);
      } else {
        _normalMatrix.getNormalMatrix(mesh.matrixWorld);
      }
      _n.applyMatrix3(_normalMatrix);
      if (_n.lengthSq() === 0) continue; // no direction: leave NaN, nothing to compare
      _n.normalize();
      nor[k] = _n.x;
      nor[k + 1] = _n.y;
      nor[k + 2] = _n.z;
    }
  }
  return { pos, nor };
}

/**
 * The [bone, weight] pairs (weight not 0) of vertex i over its first `sets` weight sets.
 * GLTFLoader turns JOINTS_0/WEIGHTS_0 into skinIndex/skinWeight and keeps JOINTS_n/WEIGHTS_n
 * (n >= 1) as plain attributes under their lowercased names. It also rescales skinWeight
 * alone to sum 1 (SkinnedMesh.normalizeSkinWeights); with more sets, glTF makes the sum
 * over all sets 1, so set 0's own sum is 1 minus the others': set 0 is scaled back to it.
 */
function skinInfluences(geometry, i, sets = 1) {
  const out = [];
  let others = 0;
  for (let s = 0; s < sets; s++) {
    const joints = geometry.attributes[s === 0 ? 'skinIndex' : `joints_${s}`];
    const weights = geometry.attributes[s === 0 ? 'skinWeight' : `weights_${s}`];
    if (!joints || !weights) throw new Error(`three.js geometry has no JOINTS_${s}/WEIGHTS_${s}`);
    for (let c = 0; c < 4; c++) {
      const w = weights.getComponent(i, c);
      if (s > 0) others += w;
      if (w !== 0) out.push([joints.getComponent(i, c), w, s]);
    }
  }
  if (sets > 1) for (const inf of out) if (inf[2] === 0) inf[1] *= 1 - others;
  return out;
}

const _skinBase = new THREE.Vector4();
const _skinPart = new THREE.Vector4();
const _skinMatrix = new THREE.Matrix4();

/**
 * Mesh-local skinned position of vertex i using every weight set. glTF skins with all
 * JOINTS_n/WEIGHTS_n sets, but three.js's SkinnedMesh.applyBoneTransform reads only the
 * first four influences, so on a primitive with JOINTS_1 it would drop real weight and
 * could not be the reference. This is applyBoneTransform's own computation with three's
 * own matrices, extended to all sets: the morphed vertex (Mesh.getVertexPosition), then
 * bindMatrix, the sum of weight × boneMatrixWorld × boneInverse, then bindMatrixInverse.
 */
function skinAllSets(mesh, i, sets, target) {
  THREE.Mesh.prototype.getVertexPosition.call(mesh, i, target);
  _skinBase.set(target.x, target.y, target.z, 1).applyMatrix4(mesh.bindMatrix);
  target.set(0, 0, 0);
  for (const [bone, w] of skinInfluences(mesh.geometry, i, sets)) {
    _skinMatrix.multiplyMatrices(mesh.skeleton.bones[bone].matrixWorld, mesh.skeleton.boneInverses[bone]);
    target.addScaledVector(_skinPart.copy(_skinBase).applyMatrix4(_skinMatrix), w);
  }
  return target.applyMatrix4(mesh.bindMatrixInverse);
}
