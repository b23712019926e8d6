// Bake-side playback features played by the runtime package, in headless Chromium against
// three.js's own playback of the source: sockets (a cube attached to the Fox's right
// front paw follows the skinned joint), root motion "extract" (the unit plays in place;
// in place plus the recorded translation matches the source), loop rows (the wrap from a
// clip's end to its start shows no jump, on MorphStressTest). Images and numbers in artifacts/features/.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { artifactsDir, BIN, browserSession, decodeMask, iou, REPO, SIZE, writeComparison } from './lib/compare.mjs';

const ARTIFACTS = artifactsDir('features');

const results = {};
const session = browserSession({ BIN, REPO, artifacts: ARTIFACTS, size: SIZE, results });
const page = session.page;
const load = session.bake;
const fmt = (x) => x.toFixed(4);
const sourcesOf = (clip) => clip.merged_from ?? [clip.source_index];
const diagonal = (d) => 2 * Math.hypot(...d.positions.half_extent);

describe('sockets: a cube on the Fox\'s right front paw (b_RightHand_08)', () => {
  const JOINT = 'b_RightHand_08';
  let d;
  before(async () => {
    ({ description: d } = await load({ name: 'Fox-sockets', model: 'Fox/Fox.glb', args: ['--sockets', JOINT] }));
  });

  test('the description records the joint on every row', () => {
    assert.deepEqual(d.settings.sockets, [JOINT]);
    assert.equal(d.sockets.length, 1);
    assert.equal(d.sockets[0].name, JOINT);
    assert.equal(d.sockets[0].rows.length, d.rows);
  });

  for (const name of ['Walk', 'Run']) {
    test(`"${name}": the attached cube follows the skinned joint (on rows and between them)`, async (t) => {
      const clip = d.clips.find((c) => c.name === name);
      const onRow = [0, 3, 7, 11, 15].filter((k) => k < clip.rows).map((k) => k / clip.rate);
      const between = [2.5, 6.5, 10.5].filter((k) => k < clip.rows - 1).map((k) => k / clip.rate);
      const offset = [0, 0, 0];
      const run = async (times) => page().evaluate(([c, s, l, j, ts, o]) => window.harness.socketCheck(c, s, l, j, ts, o), [name, sourcesOf(clip), clip.loop, JOINT, times, offset]);
      const diag = diagonal(d);
      const rows = [];
      for (const [kind, times] of [['on row', onRow], ['between rows', between]]) {
        for (const r of await run(times)) {
          const vatCube = decodeMask(r.vatCube);
          const threeCube = decodeMask(r.threeCube);
          const overlap = iou(vatCube, threeCube);
          rows.push({ kind, t: r.t, distance: r.distance, fraction: r.distance / diag, degrees: r.degrees, cubeIoU: overlap.iou, cubePixels: overlap.threePixels });
          writeComparison(SIZE, path.join(ARTIFACTS, 'sockets', `${name}-t${r.t.toFixed(3)}.png`), vatCube, threeCube);
        }
      }
      results[`socket ${name}`] = rows;
      t.diagnostic(`${name}: ` + rows.map((r) => `${r.kind} t=${r.t.toFixed(3)}: ${(r.fraction * 100).toFixed(4)}% of the diagonal, ${r.degrees.toFixed(3)}°, cube IoU ${fmt(r.cubeIoU)}`).join('; '));
      for (const r of rows) {
        assert.ok(r.cubePixels > 50, `t=${r.t}: the cube is (almost) not drawn: ${r.cubePixels} px`);
        if (r.kind === 'on row') {
          // The recorded row is the joint's transform at that time, in f32: float rounding only.
          assert.ok(r.fraction <= 1e-5, `t=${r.t}: socket ${r.distance} from the joint (${r.fraction} of the diagonal) on a row`);
          assert.ok(r.degrees <= 0.05, `t=${r.t}: socket rotation ${r.degrees}° off on a row`);
          assert.ok(r.cubeIoU >= 0.99, `t=${r.t}: cube IoU ${r.cubeIoU} on a row`);
        } else {
          // Between rows: position lerped and rotation slerped over 1/30 s of motion, in
          // which the paw can turn 10° or more (measured: ≤ 0.5% of the diagonal, ≤ 6.1°).
          assert.ok(r.fraction <= 0.01, `t=${r.t}: socket ${(r.fraction * 100).toFixed(3)}% of the diagonal from the joint between rows`);
          assert.ok(r.degrees <= 8, `t=${r.t}: socket rotation ${r.degrees.toFixed(2)}° off between rows`);
          assert.ok(r.cubeIoU >= 0.85, `t=${r.t}: cube IoU ${r.cubeIoU} between rows`);
        }
      }
    });
  }
});

describe('root motion "extract" (Kenney-MiniCharacters: the "root" node moves in z in its attacks and death)', () => {
  const MODEL = 'Kenney-MiniCharacters/character-female-a.glb';
  let keep;
  let d;
  before(async () => {
    ({ description: keep } = await load({ name: 'Kenney-keep', model: MODEL }));
    ({ description: d } = await load({ name: 'Kenney-extract', model: MODEL, args: ['--root-motion', 'extract'] }, keep));
  });

  test('the clips record their root translation and the bounds shrink', () => {
    assert.equal(d.settings.root_motion, 'extract');
    for (const clip of d.clips) {
      assert.equal(clip.root_motion?.mode, 'extract', clip.name);
      assert.equal(clip.root_motion.translation.length, clip.rows, clip.name);
    }
    const moved = (c) => Math.max(...c.root_motion.translation.map(([x, , z]) => Math.hypot(x, z)));
    results.rootMotionMax = Object.fromEntries(d.clips.map((c) => [c.name, moved(c)]));
    assert.ok(moved(d.clips.find((c) => c.name === 'attack-kick-right')) > 0.05, `attack-kick-right records ${moved(d.clips.find((c) => c.name === 'attack-kick-right'))}`);
    assert.ok(d.positions.half_extent[2] <= keep.positions.half_extent[2] + 1e-6, `z half extent ${d.positions.half_extent[2]} vs ${keep.positions.half_extent[2]} kept`);
  });

  for (const name of ['attack-kick-right', 'die']) {
    test(`"${name}": in place plus the recorded motion matches three.js; in place alone does not where the root moved`, async (t) => {
      const clip = d.clips.find((c) => c.name === name);
      const rows = [];
      for (let k = 0; k < clip.rows; k += Math.max(1, Math.floor(clip.rows / 8))) {
        const time = k / clip.rate;
        const three = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sourcesOf(clip), time, clip.loop]));
        const moved = await page().evaluate(([c, tt]) => window.harness.renderRootMotion(c, tt), [name, time]);
        const still = await page().evaluate(([c, tt]) => window.harness.renderRootMotion(c, tt, { apply: false }), [name, time]);
        const [x, , z] = clip.root_motion.translation[k];
        const r = { t: time, motion: Math.hypot(x, z), withMotion: iou(decodeMask(moved.mask), three).iou, inPlace: iou(decodeMask(still.mask), three).iou };
        rows.push(r);
        writeComparison(SIZE, path.join(ARTIFACTS, 'root-motion', `${name}-t${time.toFixed(3)}.png`), decodeMask(moved.mask), three);
      }
      results[`root motion ${name}`] = rows;
      t.diagnostic(`${name}: ` + rows.map((r) => `t=${r.t.toFixed(3)} |motion| ${r.motion.toFixed(3)}: IoU ${fmt(r.withMotion)} with it, ${fmt(r.inPlace)} in place`).join('; '));
      for (const r of rows) assert.ok(r.withMotion >= 0.98, `t=${r.t}: in place + recorded motion IoU ${fmt(r.withMotion)} < 0.98`);
      const far = rows.filter((r) => r.motion > 0.05);
      assert.ok(far.length > 0, 'some row moved the root');
      for (const r of far) assert.ok(r.inPlace < r.withMotion, `t=${r.t}: in place (${fmt(r.inPlace)}) is as close as with the motion (${fmt(r.withMotion)}): nothing was taken out`);
    });
  }
});

// Of the fixtures, only MorphStressTest's "TheWave" loops without ending bit for bit on
// its first row, so only it gets a loop row.
describe('loop rows (--loop-rows, MorphStressTest): the wrap shows no jump', () => {
  let plain;
  let looped;
  before(async () => {
    ({ description: plain } = await load({ name: 'Morph-plain', model: 'MorphStressTest/MorphStressTest.gltf' }));
    ({ description: looped } = await load({ name: 'Morph-loop-rows', model: 'MorphStressTest/MorphStressTest.gltf', args: ['--loop-rows'] }));
  });

  test('looping clips gain one row, a period longer; rate unchanged', () => {
    for (const clip of looped.clips) {
      const before = plain.clips.find((c) => c.name === clip.name);
      if (!clip.loop_row) continue;
      assert.equal(clip.rows, before.rows + 1, clip.name);
      assert.ok(Math.abs(clip.rate - before.rate) < 1e-9 * clip.rate, clip.name);
      assert.ok(Math.abs(clip.duration - (before.duration + 1 / clip.rate)) < 1e-5, clip.name);
    }
    assert.ok(looped.clips.some((c) => c.loop_row), 'some clip got a loop row');
  });

  test('across the wrap the unit moves no more than between two rows elsewhere', async (t) => {
    const rows = [];
    for (const clip of looped.clips.filter((c) => c.loop_row)) {
      const eps = 0.25 / clip.rate;
      const mask = async (time) => decodeMask(await page().evaluate(([c, tt]) => window.harness.renderVat(c, tt), [clip.name, time]));
      const wrap = iou(await mask(clip.duration - eps), await mask(clip.duration + eps)).iou; // t + 2ε wraps to ε
      // The same half-row step in the middle of the clip, for scale.
      const mid = (clip.rows - 1) / 2 / clip.rate;
      const step = iou(await mask(mid - eps), await mask(mid + eps)).iou;
      rows.push({ clip: clip.name, wrap, step });
    }
    results.loopRows = rows;
    t.diagnostic(rows.map((r) => `${r.clip}: IoU across the wrap ${fmt(r.wrap)}, across a mid-clip half row ${fmt(r.step)}`).join('; '));
    for (const r of rows) assert.ok(r.wrap >= Math.min(0.97, r.step - 0.02), `${r.clip}: the wrap jumps (IoU ${fmt(r.wrap)}, a mid-clip step ${fmt(r.step)})`);
  });
});
