// The layouts real exporters write (fixtures/variants/, made by
// fixtures/variants/generate/generate.mjs from the CC0 Kenney character): every one must
// bake with no flags and agree with three.js on every row. The broken one must be refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import * as THREE from 'three';
import validator from 'gltf-validator';
import { fixtureSuite } from './lib/suite.mjs';
import { bake, FIXTURES } from './lib/bake.mjs';
import { loadWithThree, pointRanges, captureRest, poser, worldPoints } from './lib/three-source.mjs';

const VARIANTS = [
  'mixamo-armature-cm.glb',
  'mesh-node-own-transform.glb',
  'scaled-rotated-parent.glb',
  'mesh-outside-armature.glb',
  'skeleton-set.glb',
  'skeleton-unset.glb',
  'joints-shuffled.glb',
  'two-meshes-one-skeleton.glb',
  'skinned-morph.glb',
  'split-take.glb',
  'two-weight-sets.glb', // the reference skins with both weight sets (lib/three-source.mjs)
];

for (const file of VARIANTS) fixtureSuite({ model: `variants/${file}` });
// --max-influences 4 bakes what three.js's SkinnedMesh itself shows (the first set only;
// the generator puts the strongest four there, as Blender does).
fixtureSuite({
  model: 'variants/two-weight-sets.glb',
  args: ['--max-influences', '4', '--name', 'two-weight-sets-4'],
  firstWeightSet: true,
});

// The generator refuses to write a file with validator errors; check the committed files too.
for (const file of [...VARIANTS, 'avatar-no-clips.glb', 'library-mixamo.glb', 'broken/ibm-scaled-100.glb']) {
  test(`gltf-validator: variants/${file} has no errors`, async () => {
    const bytes = new Uint8Array(fs.readFileSync(path.join(FIXTURES, 'variants', file)));
    const { issues } = await validator.validateBytes(bytes, { uri: path.basename(file), maxIssues: 0, writeTimestamp: false });
    const errors = issues.messages.filter((m) => m.severity === 0).map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`);
    assert.equal(issues.numErrors, 0, errors.slice(0, 10).join('\n'));
  });
}

// Every inverse bind matrix scaled by 100: the mesh comes out 100× its skeleton, and the
// size guard must refuse the bake rather than write a wrong texture.
test('variants/broken/ibm-scaled-100.glb is refused by the size guard', () => {
  assert.throws(() => bake(path.join(FIXTURES, 'variants', 'broken', 'ibm-scaled-100.glb')), /exited with 3\n[\s\S]*the size[\s\S]*--no-size-guard/);
});

// The generator's own promise, checked with three.js alone: a variant that only
// rearranges the file moves exactly like the Kenney character it was made from, up to
// the transform its layout puts above the character (fixtures/variants/README.md).
const BASE = 'Kenney-MiniCharacters/character-female-a.glb';
const turn = (axis, degrees) => new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(...axis), (degrees * Math.PI) / 180);
const place = (t = [0, 0, 0], q = new THREE.Quaternion(), s = 1) => new THREE.Matrix4().compose(new THREE.Vector3(...t), q, new THREE.Vector3(s, s, s));
const SAME_MOTION = {
  'mixamo-armature-cm.glb': place(),
  'mesh-node-own-transform.glb': place(),
  'scaled-rotated-parent.glb': place([0, 0, 0], turn([1, 0, 0], 90), 2.5),
  'mesh-outside-armature.glb': place([0.4, 0, -0.3], turn([0, 1, 0], 60)),
  'skeleton-set.glb': place([0, 0.25, 0.5], turn([0, 1, 0], 180)),
  'skeleton-unset.glb': place([0, 0.25, 0.5], turn([0, 1, 0], 180)),
  'joints-shuffled.glb': place(),
  'two-meshes-one-skeleton.glb': place(),
  'split-take.glb': place(), // only the walk, as one animation per node played together
};

async function posedPoints(model) {
  const { gltf, json } = await loadWithThree(path.join(FIXTURES, model));
  const { ranges, points, scene } = pointRanges(gltf, json);
  const pose = poser(scene, captureRest(scene));
  // Clips by the base's name: `walk`, `Armature|walk`; a split take's parts all at once.
  const clips = (name) => {
    const found = gltf.animations.filter((a) => a.name === name || a.name.endsWith(`|${name}`));
    return found.length ? found : gltf.animations.filter((a) => a.name.includes('|Take 001|'));
  };
  return (name, t) => {
    pose(name === null ? [] : clips(name), t);
    return worldPoints(ranges, points).pos;
  };
}

for (const [file, transform] of Object.entries(SAME_MOTION)) {
  test(`three.js: variants/${file} moves like its base`, async () => {
    const [base, variant] = [await posedPoints(BASE), await posedPoints(`variants/${file}`)];
    const v = new THREE.Vector3();
    for (const clip of file === 'split-take.glb' ? ['walk'] : ['idle', 'walk', 'die']) {
      for (const t of [0, 0.1, 0.25, 0.3]) {
        const [a, b] = [base(clip, t), variant(clip, t)];
        assert.equal(b.length, a.length, 'same points');
        let worst = { d: -1 };
        for (let i = 0; i < a.length / 3; i++) {
          v.set(a[i * 3], a[i * 3 + 1], a[i * 3 + 2]).applyMatrix4(transform);
          const d = Math.hypot(v.x - b[i * 3], v.y - b[i * 3 + 1], v.z - b[i * 3 + 2]);
          if (d > worst.d) worst = { d, i };
        }
        // The character is 0.7 units tall; float32 rounding of the rearranged data stays far below.
        assert.ok(worst.d < 1e-5, `clip ${clip} t=${t}: point ${worst.i} is ${worst.d} away from the base's`);
      }
    }
  });
}

// New weights change the motion but not the bind pose, which is also the Kenney
// character's rest pose: there the reference, skinning with both sets, must give the base.
test('three.js: variants/two-weight-sets.glb at rest is its base', async () => {
  const [a, b] = [(await posedPoints(BASE))(null, 0), (await posedPoints('variants/two-weight-sets.glb'))(null, 0)];
  assert.equal(b.length, a.length, 'same points');
  const worst = Math.max(...a.map((x, i) => Math.abs(x - b[i])));
  assert.ok(worst < 1e-5, `rest positions differ by up to ${worst}`);
});
