// The runtime package's playback features (runtimes/three: VatMesh) in headless Chromium,
// against three.js's own SkinnedMesh + AnimationMixer playback of the source, by mask
// IoU: row interpolation at off-row times (against nearest-row), a 50% crossfade
// (against AnimationMixer's blend of the same clips at 50%), and the shadow a unit casts
// on a plane (against the skinned unit's shadow; a control without the patched depth
// material must fail). Images go to tests/browser/artifacts/runtime/.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { artifactsDir, BIN, browserSession, decodeMask, iou, REPO, SIZE, writeComparison } from './lib/compare.mjs';

const ARTIFACTS = artifactsDir('runtime');

const results = {};
const session = browserSession({ BIN, REPO, artifacts: ARTIFACTS, size: SIZE, results });
const page = session.page;
const fmt = (x) => x.toFixed(4);
const load = async (fixture) => (await session.bake(fixture)).description;
const vatMask = async (clip, t, options = {}) => decodeMask(await page().evaluate(([c, tt, o]) => window.harness.renderVat(c, tt, o), [clip, t, options]));
const sourceMask = async (sources, t, loop, blend = null) =>
  decodeMask(await page().evaluate(([s, tt, l, b]) => window.harness.renderSource(s, tt, l, b), [sources, t, loop, blend]));
const sourcesOf = (clip) => clip.merged_from ?? [clip.source_index];

describe('interpolation between rows (Fox baked at 10 fps)', () => {
  let d;
  before(async () => {
    d = await load({ name: 'Fox-10fps', model: 'Fox/Fox.glb', args: ['--fps', '10'] });
  });

  // At 10 fps a row is 0.1 s of motion: off-row times 0.3 and 0.7 of the way between
  // rows, where nearest-row shows a pose 0.03 s off and interpolation blends the two.
  for (const name of ['Walk', 'Run']) {
    test(`"${name}": at off-row times the interpolated unit is closer to three.js than the nearest row`, async (t) => {
      const clip = d.clips.find((c) => c.name === name);
      const rows = [];
      for (let k = 1; k < clip.rows - 1; k += 2) {
        for (const frac of [0.3, 0.7]) {
          const time = (k + frac) / clip.rate;
          const three = await sourceMask(sourcesOf(clip), time, clip.loop);
          const lerp = await vatMask(name, time, { interpolate: true });
          const nearest = await vatMask(name, time, { interpolate: false });
          const r = { t: time, interpolated: iou(lerp, three).iou, nearest: iou(nearest, three).iou };
          rows.push(r);
          writeComparison(SIZE, path.join(ARTIFACTS, 'interpolation', `${name}-t${time.toFixed(3)}-lerp.png`), lerp, three);
          writeComparison(SIZE, path.join(ARTIFACTS, 'interpolation', `${name}-t${time.toFixed(3)}-nearest.png`), nearest, three);
        }
      }
      const mean = (key) => rows.reduce((s, r) => s + r[key], 0) / rows.length;
      results[`interpolation ${name}`] = { rate: clip.rate, rows, meanInterpolated: mean('interpolated'), meanNearest: mean('nearest') };
      t.diagnostic(`Fox "${name}" at ${clip.rate.toFixed(2)} rows/s, ${rows.length} off-row times: mean IoU interpolated ${fmt(mean('interpolated'))}, nearest row ${fmt(mean('nearest'))}; worst ${fmt(Math.min(...rows.map((r) => r.interpolated)))} vs ${fmt(Math.min(...rows.map((r) => r.nearest)))}`);
      assert.ok(mean('interpolated') >= mean('nearest') + 0.02, `interpolation (mean IoU ${fmt(mean('interpolated'))}) is not clearly closer than nearest-row (${fmt(mean('nearest'))})`);
      for (const r of rows) assert.ok(r.interpolated >= r.nearest - 0.005, `t=${r.t.toFixed(3)}: interpolated IoU ${fmt(r.interpolated)} < nearest ${fmt(r.nearest)}`);
      // Rows 0.1 s apart: a blend of two poses cuts chords across fast swings (measured
      // 0.92–0.99 per time at 10 fps; the 30 fps bake reaches 0.98–0.99, playback.test.mjs).
      assert.ok(mean('interpolated') >= 0.92, `interpolated mean IoU ${fmt(mean('interpolated'))} < 0.92`);
    });
  }
});

describe('crossfade and shadows (Fox, default bake)', () => {
  let d;
  before(async () => {
    d = await load({ name: 'Fox', model: 'Fox/Fox.glb' });
  });

  test('a 50% crossfade Walk → Run is close to AnimationMixer\'s 50% blend of the same clips', async (t) => {
    const walk = d.clips.find((c) => c.name === 'Walk');
    const run = d.clips.find((c) => c.name === 'Run');
    const rows = [];
    for (const time of [0.1, 0.3, 0.5, 0.8, 1.0]) {
      const three = await sourceMask(sourcesOf(walk), time, true, { sources: sourcesOf(run), weight: 0.5 });
      const fade = await vatMask('Walk', time, { crossfade: { clip: 'Run', weight: 0.5 } });
      const walkOnly = await vatMask('Walk', time);
      const runOnly = await vatMask('Run', time);
      const r = { t: time, crossfade: iou(fade, three).iou, walkOnly: iou(walkOnly, three).iou, runOnly: iou(runOnly, three).iou };
      rows.push(r);
      writeComparison(SIZE, path.join(ARTIFACTS, 'crossfade', `walk-run-50-t${time.toFixed(2)}.png`), fade, three);
    }
    results.crossfade = rows;
    t.diagnostic('Walk/Run 50%: ' + rows.map((r) => `t=${r.t} IoU ${fmt(r.crossfade)} (Walk alone ${fmt(r.walkOnly)}, Run alone ${fmt(r.runOnly)})`).join(', '));
    for (const r of rows) {
      // Blending vertex positions is not blending joint rotations (AnimationMixer): a
      // leg swung two ways comes out shorter (a chord, not an arc), and the Fox's thin
      // legs are much of its outline (measured 0.88–0.95). Either clip alone scores
      // about 0.65–0.75: the blend must be far closer than that.
      assert.ok(r.crossfade >= 0.85, `t=${r.t}: crossfade IoU ${fmt(r.crossfade)} < 0.85`);
      assert.ok(r.crossfade >= Math.max(r.walkOnly, r.runOnly) + 0.1, `t=${r.t}: the crossfade (${fmt(r.crossfade)}) is not clearly closer to the blend than one clip alone (${fmt(r.walkOnly)}, ${fmt(r.runOnly)})`);
    }
  });

  test('the VAT unit\'s shadow matches the skinned unit\'s; without the patched depth material it does not', async (t) => {
    const rows = [];
    for (const [name, time] of [['Run', 0.4], ['Walk', 0.3], ['Survey', 1.7]]) {
      const clip = d.clips.find((c) => c.name === name);
      const three = decodeMask(await page().evaluate(([tt, s]) => window.harness.renderShadow('source', tt, { sources: s, loop: true }), [time, sourcesOf(clip)]));
      const vat = decodeMask(await page().evaluate(([tt, c]) => window.harness.renderShadow('vat', tt, { clip: c }), [time, name]));
      const rest = decodeMask(await page().evaluate(([tt, c]) => window.harness.renderShadow('vat', tt, { clip: c, depth: false }), [time, name]));
      const r = { clip: name, t: time, ...iou(vat, three), restPose: iou(rest, three).iou };
      rows.push(r);
      writeComparison(SIZE, path.join(ARTIFACTS, 'shadow', `${name}-t${time}.png`), vat, three);
      writeComparison(SIZE, path.join(ARTIFACTS, 'shadow', `${name}-t${time}-control-rest-pose.png`), rest, three);
    }
    results.shadow = rows;
    t.diagnostic('shadow IoU: ' + rows.map((r) => `${r.clip} t=${r.t} ${fmt(r.iou)} (${r.threePixels} px; unpatched depth pass ${fmt(r.restPose)})`).join(', '));
    for (const r of rows) {
      assert.ok(r.threePixels > 0.01 * SIZE * SIZE, `${r.clip}: the skinned unit cast almost no shadow (${r.threePixels} px): the rig is wrong`);
      assert.ok(r.iou >= 0.97, `${r.clip} t=${r.t}: shadow IoU ${fmt(r.iou)} < 0.97`);
      assert.ok(r.restPose < 0.9, `${r.clip} t=${r.t}: the rest pose's shadow (IoU ${fmt(r.restPose)}) is as close as the VAT's: the check cannot see a static shadow`);
    }
  });
});

describe('array layers and separate normals, as the format describes them (the Fox\'s texture re-cut here)', () => {
  let d;
  before(async () => {
    d = await load({ name: 'Fox-relayered', model: 'Fox/Fox.glb' });
  });

  for (const normals of ['packed', 'separate']) {
    test(`layers of 50 rows, normals ${normals}: every texel decodes, and the unit matches three.js`, async (t) => {
      if (normals === 'separate') await load({ name: 'Fox-relayered', model: 'Fox/Fox.glb' }); // from the plain bake again
      const shape = await page().evaluate((o) => window.harness.relayer(o), { layerHeight: 50, normals });
      assert.deepEqual(shape, { layers: normals === 'separate' ? 8 : 4, arrayTexture: true, depth: normals === 'separate' ? 8 : 4 }, '162 rows in 4 layers of 50 (+ 4 normal layers)');
      const check = await page().evaluate(() => window.harness.decodeCheck());
      const scale = Math.max(...d.positions.center.map((c, a) => Math.abs(c) + d.positions.half_extent[a]));
      assert.equal(check.missing, 0);
      assert.ok(check.worstPos.e <= 1e-6 * scale, `position off by ${check.worstPos.e}`);
      // 16 + 16 octahedral from an 8 + 8 code: the re-encoding rounds to 0.004°.
      assert.ok(check.worstDeg.deg <= 0.01, `normal off by ${check.worstDeg.deg}°`);
      const rows = [];
      for (const name of ['Walk', 'Run']) {
        const clip = d.clips.find((c) => c.name === name);
        for (const k of [1, Math.floor(clip.rows / 2) + 0.5, clip.rows - 2]) {
          const time = k / clip.rate;
          const three = await sourceMask(sourcesOf(clip), time, clip.loop);
          rows.push({ clip: name, t: time, iou: iou(await vatMask(name, time), three).iou });
        }
      }
      results[`layers ${normals}`] = { check, rows };
      t.diagnostic(`normals ${normals}: texel check ${check.samples} samples, worst position ${check.worstPos.e.toExponential(2)}, normals ${check.worstDeg.deg.toFixed(5)}°; ` + rows.map((r) => `${r.clip} t=${r.t.toFixed(3)} IoU ${fmt(r.iou)}`).join(', '));
      for (const r of rows) assert.ok(r.iou >= 0.98, `${r.clip} t=${r.t}: IoU ${fmt(r.iou)}`);
    });
  }
});
