// Sockets and root motion on the CPU: the per-row joint transforms and root motion a bake
// records in its description (`sockets`, `clips[i].root_motion`; docs/FORMAT.md), sampled
// at a unit's time with the same rows and blend factors as its vertices (src/clips.js).
import { Matrix4, Quaternion, Vector3 } from 'three';
import { clipFrame, clipRows } from './clips.js';

const _q = new Quaternion();
const _p = new Vector3();
const _s = new Vector3(1, 1, 1);

/**
 * The socket's transform at one clip state ({ clip, localTime }, as VatMesh.state gives):
 * the two rows around the time, positions blended linearly and rotations spherically.
 * @param {{ rows: number[][] }} socket  a `sockets[i]` of the description
 * @returns {{ position: Vector3, quaternion: Quaternion }}
 */
export function sampleSocket(socket, clipState, interpolate = true) {
  const { clip, localTime } = clipState;
  const { r0, r1, f } = clipRows(clip, clipFrame(clip, localTime), interpolate);
  const a = socket.rows[clip.row + r0];
  const b = socket.rows[clip.row + r1];
  if (!a || !b) throw new Error(`vatbake: socket "${socket.name}" has ${socket.rows.length} rows; clip "${clip.name}" needs row ${clip.row + r1}`);
  const position = new Vector3(a[0], a[1], a[2]).lerp(_p.set(b[0], b[1], b[2]), f);
  const quaternion = new Quaternion(a[3], a[4], a[5], a[6]).slerp(_q.set(b[3], b[4], b[5], b[6]), f);
  return { position, quaternion };
}

/**
 * A socket on one unit: the sampled transform of clip A, blended towards clip B's by the
 * crossfade weight, then put through the unit's instance matrix and the mesh's world
 * matrix. @returns {{ position: Vector3, quaternion: Quaternion, matrix: Matrix4 }} in world space
 */
export function socketOnUnit(mesh, index, name, time) {
  const sockets = mesh.vat.description.sockets ?? [];
  const socket = sockets.find((s) => s.name === name);
  if (!socket) {
    const have = sockets.map((s) => s.name);
    throw new Error(`vatbake: no socket "${name}" in this bake (${have.length ? `have: ${have.join(', ')}` : 'bake with --sockets JOINT,… to record some'})`);
  }
  const state = mesh.state(index, time);
  let { position, quaternion } = sampleSocket(socket, state.a, mesh.interpolate);
  if (state.b) {
    const b = sampleSocket(socket, state.b, mesh.interpolate);
    position = position.lerp(b.position, state.weight);
    quaternion = quaternion.slerp(b.quaternion, state.weight);
  }
  const local = new Matrix4().compose(position, quaternion, _s);
  const instance = new Matrix4();
  mesh.getMatrixAt(index, instance);
  mesh.updateWorldMatrix(true, false);
  const matrix = new Matrix4().multiplyMatrices(mesh.matrixWorld, instance).multiply(local);
  const world = { position: new Vector3(), quaternion: new Quaternion(), matrix };
  matrix.decompose(world.position, world.quaternion, new Vector3());
  return world;
}

/**
 * The root motion a clip recorded (`clip.root_motion`, mode "extract") at a local time:
 * the translation (and yaw, where recorded) of the root since the clip's start, blended
 * between rows like the vertices; a looping clip adds one whole cycle's motion per loop
 * played, so a unit walking for a minute has walked a minute's distance.
 * @returns {{ translation: Vector3, yaw: number } | null} null when the clip has none
 */
export function rootMotionAt(description, clip, localTime, interpolate = true) {
  const motion = description.clips[clip.index]?.root_motion;
  if (!motion || !Array.isArray(motion.translation)) return null;
  const t = motion.translation;
  const yaw = Array.isArray(motion.yaw) ? motion.yaw : null;
  const { r0, r1, f } = clipRows(clip, clipFrame(clip, localTime), interpolate);
  const translation = new Vector3(...t[r0]).lerp(_p.set(...t[r1]), f);
  let angle = yaw ? yaw[r0] + (yaw[r1] - yaw[r0]) * f : 0;
  const last = clip.rows - 1;
  if (clip.loop && last > 0) {
    const loops = Math.floor((localTime * clip.rate) / last);
    if (loops !== 0) {
      // Whole cycles: the motion from the first row to the last, turned by the yaw of
      // each cycle before it (a unit walking in a circle keeps turning).
      const cycle = new Vector3(...t[last]).sub(_p.set(...t[0]));
      const cycleYaw = yaw ? yaw[last] - yaw[0] : 0;
      const total = new Vector3();
      const step = new Quaternion();
      const up = new Vector3(0, 1, 0);
      const n = Math.abs(loops);
      for (let k = 0; k < n; k++) {
        const turn = loops > 0 ? k * cycleYaw : -(k + 1) * cycleYaw;
        total.addScaledVector(cycle.clone().applyQuaternion(step.setFromAxisAngle(up, turn)), loops > 0 ? 1 : -1);
      }
      translation.applyQuaternion(step.setFromAxisAngle(up, loops * cycleYaw)).add(total);
      angle += loops * cycleYaw;
    }
  }
  return { translation, yaw: angle };
}
