// Sockets and root motion on the CPU (src/attach.js) on a hand-made description: the
// rows around the time, lerp/slerp, the crossfade, the instance matrix, and whole loops
// of root motion. (tests/browser checks them against three.js's skinned playback.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { fromParts, VatMesh, rootMotionAt, clipTable } from '../src/index.js';

const s = Math.SQRT1_2;
function description() {
  return {
    format: 'vatbake.vat', format_version: 1, points: 1, rows: 5,
    texture: { file: 'x.vat.ktx2', container: 'ktx2', width: 1, height: 5, bands: 1 },
    positions: { center: [0, 0, 0], half_extent: [1, 1, 1] },
    mesh: { file: 'x.rest.glb', points: 1 },
    clips: [
      // 3 rows over 1 s, looping; the root walks 1 then 2 along +z and turns 90° a cycle.
      { name: 'Walk', row: 0, rows: 3, rate: 2, duration: 1, loop: true,
        root_motion: { mode: 'extract', translation: [[0, 0, 0], [0, 0, 1], [0, 0, 2]], yaw: [0, Math.PI / 4, Math.PI / 2] } },
      { name: 'Wave', row: 3, rows: 2, rate: 1, duration: 1, loop: false },
    ],
    // hand: rows 0–2 (Walk) move along x and turn about y; rows 3–4 (Wave) at y = 10.
    sockets: [{ name: 'hand_r', node: 7, rows: [[0, 1, 0, 0, 0, 0, 1], [2, 1, 0, 0, s, 0, s], [4, 1, 0, 0, 1, 0, 0], [0, 10, 0, 0, 0, 0, 1], [0, 10, 0, 0, 0, 0, 1]] }],
  };
}
function mesh() {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0], 3));
  g.setAttribute('uv1', new THREE.Float32BufferAttribute([0.5, 0], 2));
  const texture = new THREE.DataTexture(new Uint16Array(20), 1, 5, THREE.RGBAFormat, THREE.UnsignedShortType);
  const vat = fromParts(description(), { scene: new THREE.Group().add(new THREE.Mesh(g)) }, texture, { renderer: { extensions: { has: () => false } } });
  return new VatMesh(vat, 2);
}
const close = (a, b, eps = 1e-9) => a.every((x, i) => Math.abs(x - b[i]) <= eps);

test('a socket between rows: position lerped, rotation slerped; through the instance matrix', () => {
  const m = mesh();
  m.setClip(1, 'Walk', { start: 0 });
  m.setMatrixAt(1, new THREE.Matrix4().makeTranslation(100, 0, 0));
  // t = 0.25 s: frame 0.5, halfway between row 0 (x 0, no turn) and row 1 (x 2, 90° about y).
  const h = m.getSocket(1, 'hand_r', 0.25);
  assert.ok(close(h.position.toArray(), [101, 1, 0]), h.position.toArray());
  assert.ok(close(h.quaternion.toArray(), [0, Math.sin(Math.PI / 8), 0, Math.cos(Math.PI / 8)]), h.quaternion.toArray());
  m.interpolate = false; // the nearest row: row 1
  assert.ok(close(m.getSocket(1, 'hand_r', 0.3).position.toArray(), [102, 1, 0]));
});

test('a socket in a crossfade blends the two clips\' transforms by the weight', () => {
  const m = mesh();
  m.setClip(0, 'Walk', { start: 0 });
  m.setCrossfade(0, 'Wave', 0.25, { start: 0 });
  const h = m.getSocket(0, 'hand_r', 0.5); // Walk row 1 (2, 1, 0); Wave row 0.5 (0, 10, 0)
  assert.ok(close(h.position.toArray(), [1.5, 3.25, 0]), h.position.toArray());
  assert.throws(() => m.getSocket(0, 'hand_l'), { message: 'vatbake: no socket "hand_l" in this bake (have: hand_r)' });
});

test('root motion: rows blended, whole loops added and turned by each cycle\'s yaw', () => {
  const d = description();
  const [walk, wave] = clipTable(d);
  assert.equal(rootMotionAt(d, wave, 0.5), null, 'a clip without root motion');
  const half = rootMotionAt(d, walk, 0.25); // frame 0.5
  assert.ok(close(half.translation.toArray(), [0, 0, 0.5]) && Math.abs(half.yaw - Math.PI / 8) < 1e-12);
  // 1.25 s: one whole cycle (+2 along z, then turned 90°: its next steps go along +x), then frame 0.5.
  const later = rootMotionAt(d, walk, 1.25);
  assert.ok(close(later.translation.toArray(), [0.5, 0, 2]), later.translation.toArray());
  assert.ok(Math.abs(later.yaw - (Math.PI / 2 + Math.PI / 8)) < 1e-12);
  const m = mesh();
  m.setClip(0, 'Walk', { start: 0 });
  assert.ok(close(m.getRootMotion(0, 1.25).translation.toArray(), [0.5, 0, 2]));
});
