// Issue 17's bake features, checked with other people's code: three.js (GLTFLoader +
// AnimationMixer) for sockets and root motion, ktx-parse + fzstd for array layers and
// separate normals. The decode formulas are docs/FORMAT.md's, written out here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as THREE from 'three';
import { bake, FIXTURES } from './lib/bake.mjs';
import { readDescription, readTexture, octDecode } from './lib/vat.mjs';
import { loadWithThree, poser, captureRest } from './lib/three-source.mjs';

const FOX = path.join(FIXTURES, 'Fox/Fox.glb');
const KENNEY = path.join(FIXTURES, 'Kenney-MiniCharacters/character-female-a.glb');

/**
 * The logical image's rows (texture.height of them) of a layered or plain texture, as
 * stored: the texels a shader reads for a --delta none bake, the row differences for a
 * default one (compared as they are: two bakes' rows are equal iff their differences are).
 */
function logicalTexels(desc, ktx2Path) {
  const { container, texels } = readTexture(ktx2Path);
  const rowLen = desc.texture.width * 4;
  const positions = texels.slice(0, desc.texture.height * rowLen);
  return { container, texels, positions };
}

test('sockets are three.js joint world transforms at the rows\' times', async () => {
  const { description } = bake(FOX, ['--sockets', 'b_RightHand_08,b_Head_05']);
  const { desc } = readDescription(description);
  const { gltf } = await loadWithThree(FOX);
  const scene = gltf.scene;
  const restore = captureRest(scene);
  const pose = poser(scene, restore);
  const diagonal = 2 * Math.hypot(...desc.positions.half_extent);
  // Tolerance: 1e-6 of the bounds diagonal for positions (vatbake in f32, three.js in
  // f64 from the same keys; measured 4.5e-5 on a 200-unit diagonal), 1e-5 rad for
  // rotations (measured 1e-6).
  let worstPosition = 0;
  let worstAngle = 0;
  for (const socket of desc.sockets) {
    const bone = scene.getObjectByName(socket.name);
    assert.ok(bone, socket.name);
    assert.equal(socket.rows.length, desc.rows);
    for (const clip of desc.clips) {
      const source = gltf.animations[clip.source_index];
      for (let k = 0; k < clip.rows; k++) {
        pose([source], k / clip.rate);
        const p = new THREE.Vector3();
        const q = new THREE.Quaternion();
        bone.matrixWorld.decompose(p, q, new THREE.Vector3());
        const [tx, ty, tz, qx, qy, qz, qw] = socket.rows[clip.row + k];
        worstPosition = Math.max(worstPosition, Math.hypot(tx - p.x, ty - p.y, tz - p.z));
        // The angle of the relative rotation from its vector part (acos of a dot near 1
        // cannot resolve f32-rounded quaternions).
        const rel = new THREE.Quaternion(qx, qy, qz, qw).invert().multiply(q);
        worstAngle = Math.max(worstAngle, 2 * Math.atan2(Math.hypot(rel.x, rel.y, rel.z), Math.abs(rel.w)));
      }
    }
  }
  console.log(`sockets: worst position ${worstPosition.toExponential(3)} (diagonal ${diagonal.toFixed(2)}), worst angle ${worstAngle.toExponential(3)} rad`);
  assert.ok(worstPosition <= 1e-6 * diagonal, `${worstPosition}`);
  assert.ok(worstAngle <= 1e-5, `${worstAngle}`);
});

test('root motion extract: in-place positions plus the recorded travel are the keep bake\'s', () => {
  const args = ['--clips', 'die', '--delta', 'none'];
  const keep = readDescription(bake(KENNEY, args).description);
  const extract = readDescription(bake(KENNEY, [...args, '--root-motion', 'extract']).description);
  const decodeAll = ({ desc, ktx2Path }) => {
    assert.equal(desc.texture.delta, undefined, 'texels stored as a shader reads them');
    const { positions } = logicalTexels(desc, ktx2Path);
    const [cx, cy, cz] = desc.positions.center;
    const [hx, hy, hz] = desc.positions.half_extent;
    return (i, r) => {
      const o = (r * desc.texture.width + i) * 4;
      return [(positions[o] / 65535 * 2 - 1) * hx + cx, (positions[o + 1] / 65535 * 2 - 1) * hy + cy, (positions[o + 2] / 65535 * 2 - 1) * hz + cz];
    };
  };
  const a = decodeAll(keep);
  const b = decodeAll(extract);
  const motion = extract.desc.clips[0].root_motion;
  assert.equal(motion.mode, 'extract');
  const tolerance = keep.desc.positions.precision + extract.desc.positions.precision + 1e-5;
  let worst = 0;
  let travelled = 0;
  for (let r = 0; r < extract.desc.rows; r++) {
    const [tx, , tz] = motion.translation[r];
    travelled = Math.max(travelled, Math.hypot(tx, tz));
    for (let i = 0; i < extract.desc.points; i++) {
      const p = a(i, r);
      const q = b(i, r);
      worst = Math.max(worst, Math.hypot(q[0] + tx - p[0], q[1] - p[1], q[2] + tz - p[2]));
    }
  }
  console.log(`root motion: travel up to ${travelled.toFixed(4)}, in place + travel off by ${worst.toExponential(3)} (tolerance ${tolerance.toExponential(3)})`);
  assert.ok(travelled > 0.05);
  assert.ok(worst <= tolerance, `${worst} > ${tolerance}`);
});

test('array layers: ktx-parse reads layerCount and sizes, and the rows are the plain bake\'s bit for bit', () => {
  const plain = readDescription(bake(KENNEY, []).description);
  const layered = readDescription(bake(KENNEY, ['--max-size', '4096x100']).description);
  const { desc } = layered;
  assert.deepEqual([desc.texture.layers, desc.texture.layer_height], [5, 85]);
  assert.deepEqual(desc.texture.delta, plain.desc.texture.delta, 'both store the same row differences');
  const a = logicalTexels(plain.desc, plain.ktx2Path);
  const b = logicalTexels(desc, layered.ktx2Path);
  assert.equal(b.container.layerCount, 5);
  assert.equal(b.container.pixelHeight, 85);
  assert.equal(b.container.pixelWidth, desc.texture.width);
  assert.equal(b.texels.length, 5 * 85 * desc.texture.width * 4);
  assert.equal(a.container.layerCount, 0);
  // Logical row y is row y mod 85 of layer floor(y / 85): the layers in order are the image.
  assert.deepEqual(Buffer.from(b.positions.buffer, b.positions.byteOffset, b.positions.byteLength), Buffer.from(a.positions.buffer, a.positions.byteOffset, a.positions.byteLength));
  assert.ok(b.texels.subarray(desc.texture.height * desc.texture.width * 4).every((v) => v === 0), 'padding rows are zero');
});

test('separate normals decode within the octahedral errors of the packed normals', () => {
  const packed = readDescription(bake(FOX, ['--delta', 'none']).description);
  const separate = readDescription(bake(FOX, ['--delta', 'none', '--normals', 'separate']).description);
  const { desc } = separate;
  assert.equal(desc.normals.encoding, 'octahedral_16_16');
  const { container, texels } = readTexture(separate.ktx2Path);
  assert.equal(container.layerCount, 2);
  const plain = readTexture(packed.ktx2Path).texels;
  const half = desc.texture.height * desc.texture.width * 4;
  const decode16 = (r, g) => {
    const x = r / 65535 * 2 - 1;
    const y = g / 65535 * 2 - 1;
    const n = new THREE.Vector3(x, y, 1 - Math.abs(x) - Math.abs(y));
    if (n.z < 0) {
      const sx = x >= 0 ? 1 : -1;
      const sy = y >= 0 ? 1 : -1;
      n.set((1 - Math.abs(y)) * sx, (1 - Math.abs(x)) * sy, n.z);
    }
    return n.normalize();
  };
  // Each 16+16 normal against the 8+8 one of the same point and row: the two encodings'
  // errors add, so within 0.96° + 0.004°; and 16+16 against itself re-encoded is exact.
  let worst = 0;
  const n8 = [0, 0, 0];
  for (let o = 0; o < half; o += 4) {
    const n = decode16(texels[half + o], texels[half + o + 1]);
    octDecode(plain[o + 3], n8);
    const m = new THREE.Vector3(...n8).normalize();
    worst = Math.max(worst, Math.atan2(n.clone().cross(m).length(), n.dot(m)) * 180 / Math.PI);
    assert.equal(texels[o + 3], 0, 'the position layers\' alpha is 0');
  }
  console.log(`separate normals: within ${worst.toFixed(4)}° of the packed ones`);
  assert.ok(worst <= 0.96 + desc.normals.max_error_degrees, `${worst}`);
});
