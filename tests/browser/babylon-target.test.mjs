// `--target babylon` played in Babylon.js (npm, pinned) in headless Chromium, as
// docs/targets/babylon.md tells a user to: the rest GLB through Babylon's glTF loader in
// its default mode (the scene left-handed, the loader's __root__ node converting), the
// KTX2 read with ktx-parse + fzstd into an RGBA16UI RawTexture, and the doc's own
// shaders (cut from the Markdown here) in a ShaderMaterial. Compared by silhouette with
// three.js's SkinnedMesh playback of the source (page/harness.js) through the same view,
// at the first row, the thirds and the last row of every clip. Controls: rows a quarter
// to half the clip away, and the right rows without the __root__ node's conversion (the
// unit mirrored), must fall below the bar. Images go to artifacts/babylon-target/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { artifactsDir, BIN, browserSession, checkedRows, decodeMask, fixture as named, iou, MIN_IOU, REPO, SIZE, sourcesOf, writeComparison } from './lib/compare.mjs';

const ARTIFACTS = artifactsDir('babylon-target');

const FIXTURES = ['Fox', 'CesiumMan', 'Kenney-MiniCharacters', 'Kenney-PlatformerCharacter', 'MorphStressTest'].map((name) => named(name));
// The Fox with a level of detail (`--lods 0.8`: the texture and rest mesh are byte for byte
// the bake's without it), played by the doc's `addLODLevel` recipe too.
FIXTURES[0].extra = ['--lods', '0.8'];
// The Fox's rest GLB under EXT_meshopt_compression (`--rest-mesh meshopt`), read by
// Babylon's glTF loader with meshoptimizer's decoder.
FIXTURES.push({ ...named('Fox'), name: 'Fox-rest-meshopt', extra: ['--rest-mesh', 'meshopt'] });

/**
 * The doc's playback shaders: the first ```glsl block under "## Playback" (the vertex
 * shader) and the `fragmentSource` string of the ```js block after it.
 */
function docShaders() {
  const doc = fs.readFileSync(path.join(REPO, 'docs', 'targets', 'babylon.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Playback'));
  const vertex = /```glsl\n([\s\S]*?)```/.exec(section);
  const fragment = /const fragmentSource = `([\s\S]*?)`;/.exec(section);
  assert.ok(vertex && fragment, 'docs/targets/babylon.md has a ```glsl vertex shader and a fragmentSource under "## Playback"');
  return { vertexSource: vertex[1], fragmentSource: fragment[1] };
}

const wrongRows = (clip, k) => [4, 3, 2].map((d) => (k + Math.round(clip.rows / d)) % clip.rows);
const fileName = (s) => s.replace(/[^A-Za-z0-9._-]+/g, '_');

const results = {};
const session = browserSession({
  BIN, REPO, artifacts: ARTIFACTS, size: SIZE, results,
  modules: ['harness', 'babylon-target'],
  async init(page) {
    await page.evaluate((s) => window.harness.init(s), SIZE);
    const info = await page.evaluate((s) => window.babylonTarget.init(s), SIZE);
    console.log(`# Babylon.js ${info.version} on WebGL ${info.webgl}`);
  },
});
const shaders = docShaders();

for (const fixture of FIXTURES) {
  describe(`Babylon.js plays --target babylon: ${fixture.name}`, () => {
    test('the doc\'s loader, texture and shader match three.js\'s skinned playback of the source', async (t) => {
      const page = session.page();
      const { urls, description } = await session.bake({ ...fixture, args: ['--target', 'babylon', ...(fixture.extra ?? [])] });
      assert.equal(description.target?.name, 'babylon', 'the description records the target');
      if (fixture.extra?.includes('--rest-mesh')) assert.equal(description.settings.rest_mesh, 'meshopt', 'the description records the rest mesh encoding');
      const info = await page.evaluate((o) => window.babylonTarget.load(o), { base: urls.base, description, ...shaders });
      t.diagnostic(`${fixture.name}: ${JSON.stringify(info)}`);
      // What the doc promises: vkFormat 91 (R16G16B16A16_UNORM) + Zstd, read back whole;
      // an RGBA16UI texture (RGBA_INTEGER, UNSIGNED_SHORT); the meshes under __root__,
      // which mirrors z (scale −1) after a half turn about y; the scene left-handed.
      assert.equal(info.vkFormat, 91);
      assert.equal(info.supercompression, 2);
      assert.deepEqual([info.width, info.height], [description.texture.width, description.texture.height]);
      assert.ok(info.maxTexel > 255, `texels above 8 bits reach the upload (max ${info.maxTexel})`);
      assert.equal(info.internalFormat, 11, 'TEXTUREFORMAT_RGBA_INTEGER');
      assert.equal(info.textureType, 5, 'TEXTURETYPE_UNSIGNED_SHORT');
      assert.ok(info.parentedUnderRoot, 'the rest meshes sit under the loader\'s __root__ node');
      assert.deepEqual(info.rootScaling, [1, 1, -1]);
      assert.equal(info.rightHanded, false);

      for (const [k, lod] of (description.lods ?? []).entries()) {
        // docs/targets/babylon.md's LOD recipe: addLODLevel at the level's switch.distance
        // scaled to this canvas (60° as stated; 256 px tall, not 1080). Babylon must draw
        // level 0 just inside it and the level just past it, and there the level's
        // silhouette must match level 0's (IoU ≥ 0.98 on every checked row of the first clip).
        const distance = (lod.switch.distance * SIZE) / lod.switch.screen_height;
        const clip = description.clips[0];
        const rows = checkedRows(clip).map((r) => clip.row + r);
        const inside = await page.evaluate((o) => window.babylonTarget.lodCheck(o), { base: urls.base, file: lod.file, distance, rows: [], factor: 0.98 });
        const past = await page.evaluate((o) => window.babylonTarget.lodCheck(o), { base: urls.base, file: lod.file, distance, rows, factor: 1.02 });
        assert.equal(inside.chosen, 'rest', `level ${k + 1}: Babylon did not keep level 0 at 0.98 × the switch distance`);
        assert.equal(past.chosen, 'level', `level ${k + 1}: Babylon did not switch to the level at 1.02 × the switch distance`);
        let worst = 1;
        let differs = 0;
        for (const m of past.masks) {
          const [a, b] = [decodeMask(m.withLevel), decodeMask(m.levelZero)];
          const r = iou(a, b);
          worst = Math.min(worst, r.iou);
          differs += a.some((v, i) => v !== b[i]) ? 1 : 0;
          assert.ok(r.union > 0, `level ${k + 1} row ${m.row}: nothing drawn`);
        }
        t.diagnostic(`${fixture.name} level ${k + 1} through addLODLevel(${distance.toFixed(1)}): Babylon picks level 0 at 0.98×, the level at 1.02×; worst IoU against level 0 there ${worst.toFixed(4)} over ${past.masks.length} rows, ${differs} of them with a pixel of difference`);
        assert.ok(worst >= MIN_IOU, `level ${k + 1}: IoU ${worst.toFixed(4)} against level 0 past the switch`);
        assert.ok(differs > 0, `level ${k + 1}: the level draws exactly level 0's pixels on every row: it was not drawn`);
      }

      // Every texel through the doc's vertex shader, read back from a float target.
      const check = await page.evaluate(() => window.babylonTarget.decodeCheck());
      t.diagnostic(`${fixture.name}: ${check.samples} (point, row) decodes through Babylon, ${check.missing} missing; worst position ${check.worstSteps.toExponential(2)} 16-bit steps, normal ${check.worstDeg.toFixed(5)}°`);
      assert.equal(check.missing, 0, 'every (point, row) reached the float target');
      // float32 arithmetic on coordinates up to ~100 model units: a few ulps, far under a
      // step; an 8-bit or half-float copy of the texels would be 32 steps off or more.
      assert.ok(check.worstSteps <= 0.05, `positions ${check.worstSteps} steps from the decode formula`);
      assert.ok(check.worstDeg <= 0.01, `normals ${check.worstDeg}° from the decode formula`);
      if (fixture.name === 'Fox') {
        // Control: the same check on an 8-bit copy of the texels must fail it.
        const lossy = await page.evaluate(() => window.babylonTarget.decodeCheck({ eightBit: true }));
        t.diagnostic(`${fixture.name} control, an 8-bit copy: worst position ${lossy.worstSteps.toFixed(1)} steps, normal ${lossy.worstDeg.toFixed(2)}°`);
        assert.ok(lossy.worstSteps > 0.05, `the 8-bit control passed: ${lossy.worstSteps} steps`);
        results[`${fixture.name} 8-bit control`] = lossy;
      }

      const rows = [];
      let unconverted = { iou: 2 };
      for (const clip of description.clips) {
        for (const k of checkedRows(clip)) {
          const time = k / clip.rate;
          const a = decodeMask(await page.evaluate((row) => window.babylonTarget.render(row), clip.row + k));
          const b = decodeMask(await page.evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sourcesOf(clip), time, clip.loop]));
          const r = iou(a, b);
          // Control: the same row without the __root__ node's conversion (glTF's numbers taken
          // as left-handed ones: the unit mirrored). A pose symmetric about the mirror plane
          // cannot show it, so the lowest IoU over the rows must fall below the bar.
          const mirrored = iou(decodeMask(await page.evaluate((row) => window.babylonTarget.render(row, { convert: false }), clip.row + k)), b).iou;
          if (mirrored < unconverted.iou) unconverted = { iou: mirrored, clip: clip.name, row: k };
          rows.push({ clip: clip.name, row: k, t: time, iou: r.iou, babylonPixels: r.vatPixels, threePixels: r.threePixels });
          writeComparison(SIZE, path.join(ARTIFACTS, fixture.name, `${fileName(clip.name)}-row${k}.png`), a, b);
          assert.ok(r.vatPixels > 0.002 * SIZE * SIZE, `clip ${clip.name} row ${k}: Babylon drew (almost) nothing: ${r.vatPixels} pixels`);
        }
      }
      const sorted = rows.map((r) => r.iou).sort((x, y) => x - y);
      const worst = rows.find((r) => r.iou === sorted[0]);
      const median = sorted[Math.floor(sorted.length / 2)];
      t.diagnostic(`${fixture.name}: ${rows.length} frames, IoU min ${worst.iou.toFixed(4)} (clip "${worst.clip}" row ${worst.row}), median ${median.toFixed(4)}`);
      results[fixture.name] = { check, rows, min: worst.iou, median };
      assert.ok(worst.iou >= MIN_IOU, `clip ${worst.clip} row ${worst.row}: IoU ${worst.iou.toFixed(4)} < ${MIN_IOU}`);

      // Control: the wrong rows must not pass.
      const clip = description.clips.find((c) => c.name === fixture.control.clip);
      const k = Math.round(fixture.control.at * (clip.rows - 1));
      const b = decodeMask(await page.evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sourcesOf(clip), k / clip.rate, clip.loop]));
      let control = 2;
      for (const wrong of wrongRows(clip, k)) {
        const a = decodeMask(await page.evaluate((row) => window.babylonTarget.render(row), clip.row + wrong));
        control = Math.min(control, iou(a, b).iou);
      }
      results[fixture.name].control = { wrongRows: control, unconverted: unconverted.iou };
      t.diagnostic(`${fixture.name} controls: "${clip.name}" rows a quarter to half the clip off from row ${k}: IoU ${control.toFixed(4)}; without __root__'s conversion, lowest over the rows: IoU ${unconverted.iou.toFixed(4)} ("${unconverted.clip}" row ${unconverted.row})`);
      assert.ok(control < MIN_IOU, `the wrong-row control passed: IoU ${control}`);
      assert.ok(unconverted.iou < MIN_IOU, `the unconverted control passed on every row: IoU ≥ ${unconverted.iou}`);
    });
  });
}
