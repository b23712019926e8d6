// VatCrowd: one bake's units, each drawn at the level of detail its size on screen allows
// (`vatbake bake --lods`): one VatMesh per level, every level reading the one texture
// through the same materials and the same clock. Each frame every unit goes to the
// coarsest level whose recorded switch its projected size is under, with hysteresis so a
// unit at a threshold does not flicker; each level is one instanced draw (and its own
// shadow draw).
import { Group, InstancedBufferAttribute, Matrix4, Vector3 } from 'three';
import { VatMesh } from './mesh.js';
import { ImpostorMesh } from './impostor.js';

const PER_INSTANCE = ['vatClipA', 'vatClipB', 'vatPlay', 'vatWeight'];
const _matrix = new Matrix4();
const _world = new Matrix4();
const _center = new Vector3();
const _camera = new Vector3();
const _scale = new Vector3();

/**
 * The screen thresholds of a bake's levels: for level k (from 1), the largest fraction of
 * the screen's height the animation bounds' diagonal may cover for level k to be shown,
 * `pixels / (screenHeight × max_error_fraction)` (the description's
 * `switch.screen_fraction` at its own pixels and screen height). Level 0 has none
 * (Infinity). Never increasing: a level is not shown larger than a finer one.
 * @param {object[]} lods  the description's `lods`
 * @param {{ pixels?: number|null, screenHeight?: number|null }} [options]
 * @returns {number[]}
 */
export function lodThresholds(lods, { pixels = null, screenHeight = null } = {}) {
  const out = [Infinity];
  for (const lod of lods ?? []) {
    const px = pixels ?? lod.switch.pixels;
    const height = screenHeight ?? lod.switch.screen_height;
    const t = lod.max_error_fraction > 0 ? px / (height * lod.max_error_fraction) : Infinity;
    out.push(Math.min(t, out[out.length - 1]));
  }
  return out;
}

/**
 * The level a unit of projected size `size` (its bounds' diagonal over the screen's
 * height) is drawn at, given the level it had: the coarsest level k whose threshold it
 * is under. Going coarser asks for `hysteresis` (a fraction) of margin below the
 * threshold; going back finer happens at the threshold itself, so the shown error never
 * exceeds the tolerance and a unit between the two keeps its level.
 * @param {number[]} thresholds  lodThresholds
 * @param {number} size
 * @param {number} current
 * @param {number} hysteresis
 */
export function chooseLevel(thresholds, size, current, hysteresis) {
  let level = 0;
  for (let k = 1; k < thresholds.length; k++) {
    const bound = k > current ? thresholds[k] * (1 - hysteresis) : thresholds[k];
    if (size < bound) level = k;
  }
  return level;
}

/**
 * A crowd of one bake with levels of detail. Use it as a VatMesh (setMatrixAt, setClip,
 * setCrossfade, setWeight, state, getSocket, getRootMotion), add it to the scene, and
 * call update(seconds, camera) once a frame before rendering.
 */
export class VatCrowd extends Group {
  /**
   * @param {ReturnType<import('./load.js').fromParts>} vat  what loadVat gave (its `lods`
   *   loaded; without any, every unit is drawn at level 0)
   * @param {number} count  units
   * @param {object} [options]
   * @param {import('three').Material|import('three').Material[]} [options.material]  as VatMesh's
   * @param {boolean} [options.interpolate=true]
   * @param {string} [options.clip]
   * @param {number} [options.pixels]  projected error allowed, in pixels (default: each
   *   level's recorded `switch.pixels`)
   * @param {number} [options.screenHeight]  the drawing buffer's height in pixels (default:
   *   each level's recorded `switch.screen_height`)
   * @param {number} [options.hysteresis=0.1]  margin below a threshold before a unit goes coarser
   * @param {number} [options.maxLevel]  the coarsest level drawn (default: the last)
   * @param {ReturnType<import('./impostor.js').impostorFromParts>} [options.impostor]  the
   *   unit's impostor (`vatbake impostor`, loadImpostor): the last level, drawn as quads
   * @param {number} [options.impostorSize]  the projected size (bounds diagonal over the
   *   screen's height) under which a unit is an impostor (default: where one cell texel
   *   is one pixel, `cell / screenHeight`, screenHeight 1080 unless given)
   * @param {boolean} [options.blendViews=true]  the impostor blends its two nearest views
   */
  constructor(vat, count, { material = null, interpolate = true, clip = null, pixels = null, screenHeight = null, hysteresis = 0.1, maxLevel = Infinity, impostor = null, impostorSize = null, blendViews = true } = {}) {
    super();
    this.name = 'VatCrowd';
    this.vat = vat;
    this.count = count;
    this.hysteresis = hysteresis;
    this.maxLevel = maxLevel;
    // Every unit's matrix, clip and crossfade: an InstancedMesh that is never drawn.
    this.units = new VatMesh(vat, count, { material, interpolate, clip });
    const lods = vat.lods ?? [];
    this.thresholds = lodThresholds(lods.map((l) => l.description ?? l), { pixels, screenHeight });
    const geometries = [vat.geometry, ...lods.map((l) => l.geometry)];
    /** Points each level's vertex shader runs over per unit (texture columns it reads). */
    this.levelPoints = [vat.description.points, ...lods.map((l) => (l.description ?? l).points)];
    /** The VatMesh drawing each level, finest first. */
    this.levels = geometries.map((geometry, k) => {
      const mesh = new VatMesh(vat, count, { material: this.units.material, interpolate, clip, geometry, uniforms: this.units.uniforms });
      mesh.customDepthMaterial.dispose();
      mesh.customDistanceMaterial.dispose();
      mesh.customDepthMaterial = this.units.customDepthMaterial;
      mesh.customDistanceMaterial = this.units.customDistanceMaterial;
      mesh.name = `${this.units.name} level ${k}`;
      mesh.count = 0;
      mesh.visible = false;
      mesh.castShadow = this._cast ?? false;
      mesh.receiveShadow = this._receive ?? false;
      this.add(mesh);
      return mesh;
    });
    if (impostor) {
      const size = impostorSize ?? impostor.sidecar.cell / (screenHeight ?? 1080);
      this.thresholds.push(Math.min(size, this.thresholds[this.thresholds.length - 1]));
      this.levelPoints.push(4);
      const quads = new ImpostorMesh(impostor, count, { interpolate, blendViews, time: this.units.uniforms.vatTime });
      quads.name = `${this.units.name} impostor`;
      quads.count = 0;
      quads.visible = false;
      this.add(quads);
      this.levels.push(quads);
      /** The impostor level (the last), or null. */
      this.impostor = quads;
      // A unit's clip (its texture rows) → the impostor's clip of the same name.
      this._impostorClips = new Map(vat.clips.map((c) => [`${c.row}:${c.rows}`, impostor.clips.get(c.name)]));
    } else {
      this.impostor = null;
    }
    /** Each unit's level after the last update. */
    this.unitLevels = new Uint8Array(count);
    /** Units drawn at each level after the last update. */
    this.levelCounts = new Array(this.levels.length).fill(0);
    /** Vertex-shader runs per frame after the last update: Σ units × points of their level. */
    this.verticesPerFrame = 0;
    this._diagonal = 2 * Math.hypot(...vat.description.positions.half_extent);
    this._center = new Vector3(...vat.description.positions.center);
  }

  get castShadow() {
    return this._cast ?? false;
  }

  set castShadow(on) {
    this._cast = on;
    for (const level of this.levels ?? []) level.castShadow = on;
  }

  get receiveShadow() {
    return this._receive ?? false;
  }

  set receiveShadow(on) {
    this._receive = on;
    for (const level of this.levels ?? []) level.receiveShadow = on;
  }

  /** The clock every unit shares, in seconds. */
  get time() {
    return this.units.time;
  }

  get interpolate() {
    return this.units.interpolate;
  }

  set interpolate(on) {
    // The materials are shared: patching the record's patches every level's.
    this.units.interpolate = on;
  }

  /**
   * Advance the shared clock (seconds) and, with a camera, put every unit at its level
   * for that camera (updateLevels).
   * @param {number} seconds
   * @param {import('three').Camera} [camera]
   */
  update(seconds, camera = null) {
    this.units.update(seconds);
    if (camera) this.updateLevels(camera);
  }

  /**
   * A unit's size on screen: its animation bounds' diagonal (scaled by its matrix and the
   * crowd's) over the height the camera sees at its bounds' centre (perspective), or over
   * the view's height (orthographic).
   */
  projectedSize(index, camera) {
    this.units.getMatrixAt(index, _matrix);
    _world.multiplyMatrices(this.matrixWorld, _matrix);
    _center.copy(this._center).applyMatrix4(_world);
    _scale.setFromMatrixScale(_world);
    const diagonal = this._diagonal * Math.max(_scale.x, _scale.y, _scale.z);
    if (camera.isOrthographicCamera) return (diagonal * camera.zoom) / (camera.top - camera.bottom);
    _camera.setFromMatrixPosition(camera.matrixWorld);
    const distance = _center.distanceTo(_camera);
    const seen = 2 * distance * Math.tan((camera.fov * Math.PI) / 360) / (camera.zoom ?? 1);
    return seen > 0 ? diagonal / seen : Infinity;
  }

  /**
   * Put every unit at its level for `camera`: its matrix, clip and crossfade copied into
   * that level's instances, each level drawing as many instances as it has units.
   * @param {import('three').Camera} camera
   */
  updateLevels(camera) {
    this.updateMatrixWorld();
    camera.updateMatrixWorld();
    const last = Math.min(this.levels.length - 1, this.maxLevel);
    const counts = this.levelCounts.fill(0);
    const from = this.units;
    const colors = from.instanceColor;
    for (let i = 0; i < this.count; i++) {
      const size = this.projectedSize(i, camera);
      const level = Math.min(chooseLevel(this.thresholds, size, this.unitLevels[i], this.hysteresis), last);
      this.unitLevels[i] = level;
      const to = this.levels[level];
      const slot = counts[level]++;
      to.instanceMatrix.array.set(from.instanceMatrix.array.subarray(i * 16, i * 16 + 16), slot * 16);
      if (to === this.impostor) {
        this._toImpostor(i, slot);
        continue;
      }
      for (const name of PER_INSTANCE) {
        const a = from.geometry.attributes[name];
        const n = a.itemSize;
        to.geometry.attributes[name].array.set(a.array.subarray(i * n, i * n + n), slot * n);
      }
      if (colors) {
        to.instanceColor ??= new InstancedBufferAttribute(new Float32Array(this.count * 3), 3);
        to.instanceColor.array.set(colors.array.subarray(i * 3, i * 3 + 3), slot * 3);
      }
    }
    let vertices = 0;
    this.levels.forEach((mesh, k) => {
      mesh.count = counts[k];
      mesh.visible = counts[k] > 0;
      mesh.instanceMatrix.needsUpdate = true;
      const names = mesh === this.impostor ? ['impClip', 'impPlay'] : PER_INSTANCE;
      for (const name of names) mesh.geometry.attributes[name].needsUpdate = true;
      if (mesh.instanceColor) mesh.instanceColor.needsUpdate = true;
      mesh.boundingSphere = null;
      mesh.boundingBox = null;
      vertices += counts[k] * this.levelPoints[k];
    });
    this.verticesPerFrame = vertices;
    return this;
  }

  /** Unit `i`'s clip and clock as impostor instance `slot`: the clip of its larger crossfade weight. */
  _toImpostor(i, slot) {
    const a = this.units.geometry.attributes;
    const useB = a.vatWeight.getX(i) > 0.5;
    const clipInfo = useB ? a.vatClipB : a.vatClipA;
    const clip = this._impostorClips.get(`${clipInfo.getX(i)}:${clipInfo.getY(i)}`);
    const play = a.vatPlay;
    const [start, speed] = useB ? [play.getZ(i), play.getW(i)] : [play.getX(i), play.getY(i)];
    const to = this.impostor.geometry.attributes;
    if (clip) to.impClip.array.set([clip.first_frame, clip.frames, clip.duration, clip.looping ? 1 : 0], slot * 4);
    to.impPlay.array.set([start, speed], slot * 2);
  }

  setMatrixAt(index, matrix) {
    this.units.setMatrixAt(index, matrix);
    return this;
  }

  getMatrixAt(index, matrix) {
    return this.units.getMatrixAt(index, matrix);
  }

  setColorAt(index, color) {
    this.units.setColorAt(index, color);
    return this;
  }

  setClip(index, name, options) {
    this.units.setClip(index, name, options);
    return this;
  }

  setCrossfade(index, name, weight, options) {
    this.units.setCrossfade(index, name, weight, options);
    return this;
  }

  setWeight(index, weight) {
    this.units.setWeight(index, weight);
    return this;
  }

  state(index, time) {
    return this.units.state(index, time);
  }

  getSocket(index, name, time) {
    this.updateMatrixWorld();
    this.units.matrixWorld.copy(this.matrixWorld);
    return this.units.getSocket(index, name, time);
  }

  getRootMotion(index, time) {
    return this.units.getRootMotion(index, time);
  }

  /** Free every level's geometry and the shared materials (the texture stays: vat.dispose()). */
  dispose() {
    // The materials are shared: disposing them twice is harmless.
    for (const level of this.levels) level.dispose();
    this.units.dispose();
    return this;
  }
}
