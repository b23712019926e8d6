// VatMesh: an InstancedMesh of one bake, every unit with its own clip, start time, speed
// and crossfade, drawn with three's own materials patched to take positions and normals
// from the texture, and depth/distance materials patched the same way so shadows move.
import {
  BufferGeometry,
  InstancedBufferAttribute,
  InstancedMesh,
  MeshDepthMaterial,
  MeshDistanceMaterial,
  RGBADepthPacking,
} from 'three';
import { patchVertexShader } from './glsl.js';
import { clipFrame, clipRows, findClip } from './clips.js';
import { rootMotionAt, socketOnUnit } from './attach.js';

/**
 * Make a built-in three.js material (MeshStandardMaterial, MeshLambertMaterial,
 * MeshBasicMaterial, MeshDepthMaterial, MeshDistanceMaterial, …) draw VAT positions and
 * normals through onBeforeCompile. `uniforms` (shared by reference, so a change reaches
 * every material at once): vatTexture, vatSize, vatCenter, vatHalfExtent, vatTime.
 * @param {import('three').Material} material  patched in place and returned
 * @param {object} uniforms
 * @param {{ norm16?: boolean, interpolate?: boolean, normals?: boolean, crossfade?: boolean, layers?: boolean, separateNormals?: boolean }} [options]
 */
export function patchMaterial(material, uniforms, { norm16 = false, interpolate = true, normals = true, crossfade = true, layers = false, separateNormals = false } = {}) {
  // The material's own onBeforeCompile, kept once: patching again (a switch of
  // interpolation) replaces the patch instead of stacking a second one on it.
  if (!material.userData.vatbake) material.userData.vatbakeOwnCompile = material.onBeforeCompile;
  const previous = material.userData.vatbakeOwnCompile;
  material.defines = { ...material.defines };
  if (norm16) material.defines.VAT_NORM16 = '';
  else delete material.defines.VAT_NORM16;
  if (!interpolate) material.defines.VAT_NEAREST = '';
  else delete material.defines.VAT_NEAREST;
  if (crossfade) material.defines.VAT_CROSSFADE = '';
  else delete material.defines.VAT_CROSSFADE;
  if (layers) material.defines.VAT_LAYERS = '';
  else delete material.defines.VAT_LAYERS;
  if (separateNormals && normals) material.defines.VAT_NORMALS_SEPARATE = '';
  else delete material.defines.VAT_NORMALS_SEPARATE;
  material.onBeforeCompile = (shader, renderer) => {
    previous?.call(material, shader, renderer);
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = patchVertexShader(shader.vertexShader, { normals });
  };
  material.customProgramCacheKey = () => `vatbake${normals ? '' : '-rest-normals'}`;
  material.userData.vatbake = true;
  material.needsUpdate = true;
  return material;
}

const ATTRIBUTES = [
  ['vatClipA', 4],
  ['vatClipB', 4],
  ['vatPlay', 4],
  ['vatWeight', 1],
];

/**
 * Units of one bake in one InstancedMesh (one draw call per material). Place them with
 * setMatrixAt as any InstancedMesh; give each a clip with setClip, a crossfade with
 * setCrossfade, and advance the shared clock with update(seconds).
 */
export class VatMesh extends InstancedMesh {
  /**
   * @param {ReturnType<import('./load.js').fromParts>} vat  what loadVat gave
   * @param {number} count  units
   * @param {object} [options]
   * @param {import('three').Material|import('three').Material[]} [options.material]  drawn instead
   *   of (clones of) the rest GLB's own materials; patched here
   * @param {boolean} [options.interpolate=true]  blend the two rows around the time; false: nearest row
   * @param {string} [options.clip]  every unit's first clip (default: the description's first)
   * @param {import('three').BufferGeometry} [options.geometry]  drawn instead of the rest
   *   mesh: a level of detail (`vat.lods[k].geometry`), whose TEXCOORD_1 reads the same texture
   * @param {object} [options.uniforms]  another VatMesh's `uniforms`, to share its clock
   *   (VatCrowd's levels); default: this mesh's own
   */
  constructor(vat, count, { material = null, interpolate = true, clip = null, geometry: rest = vat.geometry, uniforms: shared = null } = {}) {
    // The rest mesh's attributes and index are shared with the bake; the per-instance
    // attributes are this mesh's own.
    const geometry = new BufferGeometry();
    for (const [name, attribute] of Object.entries(rest.attributes)) geometry.setAttribute(name, attribute);
    geometry.setIndex(rest.index);
    for (const g of rest.groups) geometry.addGroup(g.start, g.count, g.materialIndex);
    geometry.boundingBox = rest.boundingBox.clone();
    geometry.boundingSphere = rest.boundingSphere.clone();
    for (const [name, size] of ATTRIBUTES) {
      geometry.setAttribute(name, new InstancedBufferAttribute(new Float32Array(count * size), size));
    }
    const uniforms = shared ?? { ...vat.uniforms, vatTime: { value: 0 } };
    // Crossfades compile in on the first setCrossfade (one recompile), not before.
    const options = { norm16: vat.path === 'norm16', interpolate, crossfade: false, layers: vat.arrayTexture, normals: vat.normals !== 'none', separateNormals: vat.normals === 'separate' };
    const drawn = material ?? vat.materials.map((m) => m.clone());
    const list = Array.isArray(drawn) ? drawn : [drawn];
    for (const m of list) patchMaterial(m, uniforms, options);
    super(geometry, drawn, count);
    this.name = vat.description.mesh?.file ?? 'vatbake';
    this.vat = vat;
    this.uniforms = uniforms;
    this._interpolate = interpolate;
    this._crossfade = false;
    // Shadows: three's depth and distance passes draw with these, displaced the same way
    // (a depth pass that did not would leave the rest pose's shadow behind).
    this.customDepthMaterial = patchMaterial(new MeshDepthMaterial({ depthPacking: RGBADepthPacking }), uniforms, { ...options, normals: false });
    this.customDistanceMaterial = patchMaterial(new MeshDistanceMaterial(), uniforms, { ...options, normals: false });
    const first = findClip(vat.clips, clip ?? 0);
    for (let i = 0; i < count; i++) this.setClip(i, first.name);
  }

  /** The clock shared by every unit, in seconds. */
  get time() {
    return this.uniforms.vatTime.value;
  }

  /** Advance the shared clock (seconds). */
  update(seconds) {
    this.uniforms.vatTime.value = seconds;
  }

  /** Blend the two rows around a unit's time (true, default) or show the nearest row. */
  get interpolate() {
    return this._interpolate;
  }

  set interpolate(on) {
    this._interpolate = Boolean(on);
    this._repatch();
  }

  _repatch() {
    const options = { norm16: this.vat.path === 'norm16', interpolate: this._interpolate, crossfade: this._crossfade, layers: this.vat.arrayTexture, normals: this.vat.normals !== 'none', separateNormals: this.vat.normals === 'separate' };
    for (const m of Array.isArray(this.material) ? this.material : [this.material]) patchMaterial(m, this.uniforms, options);
    patchMaterial(this.customDepthMaterial, this.uniforms, { ...options, normals: false });
    patchMaterial(this.customDistanceMaterial, this.uniforms, { ...options, normals: false });
  }

  /**
   * Unit `index` plays clip `name` (or index) from `start` (seconds of the shared clock;
   * default: now) at `speed`, alone: any crossfade ends.
   */
  setClip(index, name, { start = this.time, speed = 1 } = {}) {
    const clip = findClip(this.vat.clips, name);
    this._set('vatClipA', index, [clip.row, clip.rows, clip.rate, clip.loop ? 1 : 0]);
    const play = this.geometry.attributes.vatPlay;
    this._set('vatPlay', index, [start, speed, play.getZ(index), play.getW(index)]);
    this._set('vatWeight', index, [0]);
    return this;
  }

  /**
   * Unit `index` shows `weight` (0..1) of clip `name` over its clip A: 0.5 is an even
   * blend of the two poses; raise it over time for a crossfade. `start`/`speed` as setClip.
   */
  setCrossfade(index, name, weight, { start = this.time, speed = 1 } = {}) {
    const clip = findClip(this.vat.clips, name);
    if (!this._crossfade) {
      this._crossfade = true;
      this._repatch();
    }
    this._set('vatClipB', index, [clip.row, clip.rows, clip.rate, clip.loop ? 1 : 0]);
    const play = this.geometry.attributes.vatPlay;
    this._set('vatPlay', index, [play.getX(index), play.getY(index), start, speed]);
    this._set('vatWeight', index, [Math.min(Math.max(weight, 0), 1)]);
    return this;
  }

  /** Change only the crossfade weight of unit `index`. */
  setWeight(index, weight) {
    this._set('vatWeight', index, [Math.min(Math.max(weight, 0), 1)]);
    return this;
  }

  /**
   * Where unit `index` is at shared time `time` (default: now), as the shader sees it:
   * for clip A and, with a weight, clip B, the clip, its local time, and the two rows
   * (texture rows within the band: `clip.row` added) with the blend factor.
   */
  state(index, time = this.time) {
    const a = this.geometry.attributes;
    const one = (clipInfo, start, speed) => {
      const clip = this.vat.clips.find((c) => c.row === clipInfo[0] && c.rows === clipInfo[1]);
      const localTime = (time - start) * speed;
      const { r0, r1, f } = clipRows(clip, clipFrame(clip, localTime), this._interpolate);
      return { clip, localTime, row0: clip.row + r0, row1: clip.row + r1, f };
    };
    const get = (name) => {
      const at = a[name];
      return [at.getX(index), at.getY(index), at.getZ(index), at.getW(index)];
    };
    const play = get('vatPlay');
    const weight = a.vatWeight.getX(index);
    return {
      a: one(get('vatClipA'), play[0], play[1]),
      b: weight > 0 ? one(get('vatClipB'), play[2], play[3]) : null,
      weight,
    };
  }

  /**
   * Where socket `name` (a joint recorded with `vatbake bake --sockets`) of unit `index`
   * is at shared time `time` (default: now), in world space: interpolated and crossfaded
   * as the unit's vertices are, through its instance matrix and the mesh's world matrix.
   * Attach an object with `object.matrix.copy(socket.matrix)` (matrixAutoUpdate off) or
   * by copying `position` and `quaternion`.
   * @returns {{ position: import('three').Vector3, quaternion: import('three').Quaternion, matrix: import('three').Matrix4 }}
   */
  getSocket(index, name, time = this.time) {
    return socketOnUnit(this, index, name, time);
  }

  /**
   * The root motion unit `index`'s clip A recorded (a bake with `--root-motion extract`
   * plays in place) at shared time `time`: translation since the clip's start (whole
   * loops included) and yaw, in the bake's space; null when the clip has none. Compose
   * it with the unit's placement to move the unit as the source moved.
   * @returns {{ translation: import('three').Vector3, yaw: number } | null}
   */
  getRootMotion(index, time = this.time) {
    const { a } = this.state(index, time);
    return rootMotionAt(this.vat.description, a.clip, a.localTime, this._interpolate);
  }

  /** As InstancedMesh's, and the bounds are recomputed on the next culling test. */
  setMatrixAt(index, matrix) {
    super.setMatrixAt(index, matrix);
    this.boundingBox = null;
    this.boundingSphere = null;
    return this;
  }

  _set(name, index, values) {
    const attribute = this.geometry.attributes[name];
    attribute.array.set(values, index * attribute.itemSize);
    attribute.needsUpdate = true;
  }

  /** Free the per-mesh geometry and materials (the bake's texture stays: vat.dispose()). */
  dispose() {
    super.dispose();
    this.geometry.dispose();
    for (const m of Array.isArray(this.material) ? this.material : [this.material]) m.dispose();
    this.customDepthMaterial.dispose();
    this.customDistanceMaterial.dispose();
    return this;
  }
}
