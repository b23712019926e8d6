// Other tools' players in headless Chromium (lib/compare.mjs sets up): each
// fixture is baked with `--format playcanvas` and the .vat is played by PlayCanvas's
// engine (npm, pinned) through its own scripts/esm/vat, against three.js's SkinnedMesh
// playback of the source with the same camera, compared by silhouette IoU on every
// stored row of a third of the clip and at the end. A negative control plays a clip 25%
// fast and must fall below the bar. Comparison images go to tests/browser/artifacts/players/.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { artifactsDir, BIN, browserSession, clipToCheck, decodeMask, iou, MIN_IOU, REPO, SIZE, writeComparison } from './lib/compare.mjs';

const ARTIFACTS = artifactsDir('players');

const FIXTURES = [
  { name: 'Fox', model: 'Fox/Fox.glb', clips: ['Survey', 'Walk', 'Run'], control: 'Run' },
  { name: 'MorphStressTest', model: 'MorphStressTest/MorphStressTest.gltf', clips: ['Individuals', 'TheWave'], control: 'TheWave' },
  { name: 'Kenney-MiniCharacters', model: 'Kenney-MiniCharacters/character-female-a.glb', clips: ['walk', 'die'], control: 'die' },
  { name: 'RiggedSimple', model: 'RiggedSimple/rigged-simple.gltf', clips: ['animation_0'], control: 'animation_0' },
];

const session = browserSession({
  BIN, REPO, artifacts: ARTIFACTS, size: SIZE, modules: ['harness', 'players'],
  async init(page) {
    await page.evaluate((s) => window.harness.init(s), SIZE);
    const info = await page.evaluate((s) => window.players.initPlayCanvas(s), SIZE);
    console.log(`# PlayCanvas ${info.version} on ${info.deviceType}`);
  },
});

for (const fixture of FIXTURES) {
  describe(`PlayCanvas plays ${fixture.name}`, () => {
    let info;
    let description;
    const page = () => session.page();

    before(async () => {
      let urls;
      ({ description, urls } = await session.bake({ ...fixture, args: ['--format', 'playcanvas'] }));
      info = await page().evaluate((u) => window.players.loadPlayCanvas(u), `${urls.base}${urls.stem}.vat`);
    });

    test('the engine reads the container: counts, layout and its decode of frame 0 within half a 16-bit step of ours', async (t) => {
      const frames = description.clips.reduce((n, c) => n + Math.max(c.rows, 2), 0);
      assert.equal(info.vertexCount, description.points);
      assert.equal(info.frameCount, frames);
      assert.ok(info.width <= 4096 && (info.width & (info.width - 1)) === 0, `width ${info.width} is a power of two ≤ 4096`);
      assert.ok(info.width * info.height >= description.points * frames);
      const worst = await page().evaluate((f) => window.players.compareFrame0(f), info.frame0);
      t.diagnostic(`${fixture.name}: ${info.vertexCount} vertices × ${info.frameCount} frames in ${info.width}×${info.height}; PlayCanvas's frame-0 decode vs ours: ${worst.toExponential(2)} steps`);
      // The same quantization over the same box: only float rounding separates them.
      assert.ok(worst <= 0.5, `PlayCanvas decodes frame 0 ${worst} steps from our decode`);
    });

    for (const clipName of fixture.clips) {
      test(`clip "${clipName}": PlayCanvas and three.js silhouettes agree (IoU ≥ ${MIN_IOU})`, async (t) => {
        const { clip, sources, rows } = clipToCheck(description, clipName);
        const results = [];
        for (const k of rows) {
          const time = k / clip.rate;
          const a = decodeMask(await page().evaluate(([c, tt]) => window.players.renderPlayCanvas(c, tt), [clipName, time]));
          const b = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sources, time, clip.loop]));
          const r = iou(a, b);
          results.push({ t: time, iou: r.iou, px: r.vatPixels });
          writeComparison(SIZE, path.join(ARTIFACTS, `${fixture.name}-${clipName.replace(/[^A-Za-z0-9._-]+/g, '_')}-row${k}.png`), a, b);
        }
        t.diagnostic(`${fixture.name} "${clipName}": ` + results.map((r) => `t=${r.t.toFixed(3)} IoU ${r.iou.toFixed(4)}`).join(', '));
        for (const r of results) {
          assert.ok(r.px > 0.002 * SIZE * SIZE, `t=${r.t}: PlayCanvas drew (almost) nothing: ${r.px} pixels`);
          assert.ok(r.iou >= MIN_IOU, `t=${r.t.toFixed(4)}: IoU ${r.iou.toFixed(4)} < ${MIN_IOU}`);
        }
      });
    }

    test(`negative control: "${fixture.control}" played 25% fast falls below IoU ${MIN_IOU}`, async (t) => {
      const clip = description.clips.find((c) => c.name === fixture.control);
      const time = Math.round((2 / 3) * (clip.rows - 1)) / clip.rate;
      const b = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [clip.merged_from ?? [clip.source_index], time, clip.loop]));
      const a = decodeMask(await page().evaluate(([c, tt]) => window.players.renderPlayCanvas(c, tt, { speed: 1.25 }), [clip.name, time]));
      const r = iou(a, b).iou;
      t.diagnostic(`${fixture.name} "${clip.name}" at t=${time.toFixed(3)}, ×1.25: IoU ${r.toFixed(4)}`);
      assert.ok(r < MIN_IOU, `PlayCanvas at ×1.25 still matched three.js (IoU ${r.toFixed(4)})`);
    });
  });
}
