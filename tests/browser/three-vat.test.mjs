// three-vat (manthrax/three-vat, the three.js player of SideFX Labs VAT 3) playing our
// `--format vat3` export in headless Chromium, against three.js's SkinnedMesh playback of the
// source with the same camera (harness.js), compared by silhouette IoU at stored rows.
//
// three-vat has no licence and is not on npm, so none of its code is in this repository:
// the test runs only when THREE_VAT_DIR points at a checkout of it (VATLoader.js and
// VATEffect.js at commit ada013b7, plain ES modules importing 'three'; no build step), e.g.
//   git -C <clone> archive ada013b VATLoader.js VATEffect.js | tar -x -C /tmp/three-vat
//   THREE_VAT_DIR=/tmp/three-vat node --test three-vat.test.mjs
// and is skipped with that reason otherwise. three-vat asks for three ^0.185.0; the page
// maps 'three' to this folder's pinned three, or to THREE_VAT_THREE_DIR (a three package
// folder, e.g. three@0.185.0 installed outside the repository) when set.
//
// Every fixture is baked with --max-width 1000 so the bigger ones wrap into bands. The
// player is driven by its own clock: playback off and `u_displayFrame` set to the clip's
// global row (VAT 3 has one frame range: all clips end to end), and once by time.
// A negative control shows a clip's frame at 1.25 × the time and must fall below the bar.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { artifactsDir, BIN, browserSession, clipToCheck, decodeMask, iou, MIN_IOU, REPO, SIZE, writeComparison } from './lib/compare.mjs';

const ARTIFACTS = artifactsDir('three-vat');
const THREE_VAT = process.env.THREE_VAT_DIR;

// Each fixture's name is its file stem: VATLoader reads <root><name>/<name>_data.json.
const FIXTURES = [
  { name: 'Fox', model: 'Fox/Fox.glb', clips: ['Survey', 'Walk', 'Run'], control: 'Run' },
  { name: 'CesiumMan', model: 'CesiumMan/glTF-Binary/CesiumMan.glb', clips: ['animation_0'], control: 'animation_0' },
  { name: 'character-female-a', model: 'Kenney-MiniCharacters/character-female-a.glb', clips: ['walk', 'die'], control: 'die' },
  { name: 'character', model: 'Kenney-PlatformerCharacter/character.glb', clips: ['walk', 'jump'], control: 'jump' },
];

const skip = !THREE_VAT
  ? 'THREE_VAT_DIR is not set: point it at a checkout of manthrax/three-vat (VATLoader.js, VATEffect.js) to run this proof'
  : !fs.existsSync(path.join(THREE_VAT, 'VATLoader.js'))
    ? `THREE_VAT_DIR=${THREE_VAT} has no VATLoader.js`
    : false;
if (skip) console.log(`# three-vat.test.mjs skipped: ${skip}`);
// A skipped describe counts in no total of node's summary (`skipped 0`); a skipped test
// counts as one, so the run's summary says that this proof did not run.
if (skip) test('three-vat plays --format vat3', { skip }, () => {});

const all = [];
const session = skip
  ? null
  : browserSession({
      BIN, REPO, artifacts: ARTIFACTS, size: SIZE, modules: ['harness', 'three-vat'],
      mounts: [['/three-vat/', THREE_VAT]],
      three: process.env.THREE_VAT_THREE_DIR || null,
      async init(page) {
        await page.evaluate((s) => window.harness.init(s), SIZE);
        console.log(`# three.js r${await page.evaluate(() => window.threeVat.revision)}`);
      },
    });

describe('three-vat plays --format vat3', { skip }, () => {
  const page = () => session.page();

  after(() => {
    if (!all.length) return;
    const sorted = all.map((r) => r.iou).sort((a, b) => a - b);
    console.log(`# three-vat vs three.js over ${sorted.length} frames: IoU min ${sorted[0].toFixed(4)}, median ${sorted[Math.floor(sorted.length / 2)].toFixed(4)}`);
    fs.writeFileSync(path.join(ARTIFACTS, 'results.json'), JSON.stringify(all, null, 2));
  });

  for (const fixture of FIXTURES) {
    describe(fixture.name, () => {
      let description;
      let info;
      const slug = (s) => s.replace(/[^A-Za-z0-9._-]+/g, '_');

      before(async () => {
        ({ description } = await session.bake({ ...fixture, args: ['--format', 'vat3', '--max-width', '1000'] }));
        info = await page().evaluate(([root, name]) => window.threeVat.loadThreeVat(root, name), ['/bake/', fixture.name]);
      });

      test('VATLoader reads the export as an HDR soft body with rotation-texture normals, ratio 1', (t) => {
        t.diagnostic(`${fixture.name}: ${JSON.stringify(info)}`);
        assert.equal(info.type, 'Softbody');
        assert.equal(info.isTexHdr, true);
        assert.equal(info.useCompressedNormals, false);
        assert.deepEqual(info.activePixelsRatio, [1, 1]);
        assert.equal(info.frameCount, Math.max(description.rows, 2));
        assert.equal(info.frameRate, description.settings.fps);
        assert.equal(info.vertices, description.points + 2);
        assert.ok(info.hasVatUv1, 'TEXCOORD_1 became vatUv1');
        const pos = info.textures.vatPosTex;
        assert.deepEqual([pos.width, pos.height], [description.texture.width, info.frameCount * description.texture.bands]);
        // What three-vat hands the GPU: EXRLoader's default, half floats (the stated loss).
        assert.equal(pos.type, info.halfFloat);
        for (const key of ['vatRotTex', 'vatColTex']) assert.equal(info.textures[key].width, pos.width, `${key} is our file, not the 1×1 fallback`);
      });

      for (const clipName of fixture.clips) {
        test(`clip "${clipName}": three-vat and three.js silhouettes agree (IoU ≥ ${MIN_IOU})`, async (t) => {
          const { clip, sources, rows } = clipToCheck(description, clipName);
          const results = [];
          for (const k of rows) {
            const time = k / clip.rate;
            const a = decodeMask(await page().evaluate((f) => window.threeVat.renderThreeVat({ frame: f }), clip.row + k));
            const b = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sources, time, clip.loop]));
            const r = { fixture: fixture.name, clip: clipName, row: k, frame: clip.row + k, iou: iou(a, b).iou, px: a.reduce((n, v) => n + (v ? 1 : 0), 0) };
            results.push(r);
            all.push(r);
            writeComparison(SIZE, path.join(ARTIFACTS, fixture.name, `${slug(clipName)}-row${k}.png`), a, b);
          }
          t.diagnostic(`${fixture.name} "${clipName}": ` + results.map((r) => `frame ${r.frame} IoU ${r.iou.toFixed(4)}`).join(', '));
          for (const r of results) {
            assert.ok(r.px > 0.002 * SIZE * SIZE, `frame ${r.frame}: three-vat drew (almost) nothing: ${r.px} pixels`);
            assert.ok(r.iou >= MIN_IOU, `frame ${r.frame}: IoU ${r.iou.toFixed(4)} < ${MIN_IOU}`);
          }
        });
      }

      test("playback by the player's own clock lands on the frame: time = frame · (frames − 0.01) / (frames · fps)", async (t) => {
        const clip = description.clips.find((c) => c.name === fixture.clips[0]);
        const k = Math.round((clip.rows - 1) / 2);
        const frames = info.frameCount;
        // three-vat's progress is fps / (frames − 0.01) per second; half a frame's margin is
        // added so the frame's floor is exact in floats, and the blend towards the next frame is
        // taken out again by comparing with the source halfway between the two rows.
        const time = ((clip.row + k + 0.5) * (frames - 0.01)) / (frames * info.frameRate);
        const a = decodeMask(await page().evaluate((tt) => window.threeVat.renderThreeVat({ time: tt }), time));
        const b = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [clip.merged_from ?? [clip.source_index], (k + 0.5) / clip.rate, clip.loop]));
        const r = iou(a, b).iou;
        writeComparison(SIZE, path.join(ARTIFACTS, fixture.name, `${slug(clip.name)}-by-time-row${k}.5.png`), a, b);
        t.diagnostic(`${fixture.name} "${clip.name}" at player time ${time.toFixed(4)} s (row ${k} + ½): IoU ${r.toFixed(4)}`);
        // Halfway between rows both sides interpolate (linear blend vs the skinned pose), so the
        // bar is the one playback.test.mjs uses between rows.
        assert.ok(r >= 0.95, `IoU ${r.toFixed(4)} < 0.95`);
      });

      test(`negative control: "${fixture.control}" at 1.25 × the time falls below IoU ${MIN_IOU}`, async (t) => {
        const clip = description.clips.find((c) => c.name === fixture.control);
        const k = Math.round((2 / 3) * (clip.rows - 1));
        const wrong = Math.min(Math.round(k * 1.25), clip.rows - 1);
        const a = decodeMask(await page().evaluate((f) => window.threeVat.renderThreeVat({ frame: f }), clip.row + wrong));
        const b = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [clip.merged_from ?? [clip.source_index], k / clip.rate, clip.loop]));
        const r = iou(a, b).iou;
        t.diagnostic(`${fixture.name} "${clip.name}": row ${wrong} shown for row ${k}: IoU ${r.toFixed(4)}`);
        assert.ok(r < MIN_IOU, `a wrong frame still matched three.js (IoU ${r.toFixed(4)})`);
      });
    });
  }
});
