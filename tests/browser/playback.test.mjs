// VAT playback in a real browser (Debian's Chromium, headless, WebGL2 on SwiftShader):
// for each fixture, bake it with the vatbake binary, then draw one unit through the
// runtime package runtimes/three (@vatbake/three) and the source model through three.js's own GLTFLoader +
// AnimationMixer, with the same camera, as white-on-black silhouettes, and require the
// masks to agree (IoU) at several times of every tested clip. A negative control plays
// the VAT at the wrong speed and requires the IoU to drop below the threshold, so the
// check can see a wrong rate. Comparison images go to tests/browser/artifacts/.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodePng } from './lib/png.mjs';
import { bakeFixture, decodeMask, iou, openHarness, writeComparison } from './lib/compare.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const ARTIFACTS = path.join(HERE, 'artifacts');
const BIN = process.env.VATBAKE_BIN || path.join(REPO, 'target', 'debug', 'vatbake');

const SIZE = 256; // canvas pixels (SwiftShader is a software rasterizer: keep it small)
// Silhouette agreement required, as intersection over union of the covered pixels. On a
// row (what the texture stores) the measured IoU is 0.9993 or more: 0.98 leaves room for
// a few edge pixels rasterized differently, and playing a clip 20% off its rate drops it
// to 0.968 or less on the control clips below (see README).
const MIN_IOU = 0.98;
const WRONG_SPEEDS = [0.8, 1.25];

/** The largest |coordinate| a description's bounds reach: the scale of float32 noise. */
const maxCoordinate = (d) => Math.max(...d.positions.center.map((c, a) => Math.abs(c) + d.positions.half_extent[a]));

/** harness.decodeCheck's result for a lossless path: every (point, row) drawn, exact but for float32 noise. */
function assertLossless(check, scale) {
  assert.equal(check.missing, 0, 'every (point, row) was drawn');
  // float32 arithmetic on exact u16 values: a few ulps of the largest coordinate. A
  // lossy upload (half float: 11-bit mantissa) would be off by ~1e-3 of the range.
  assert.ok(check.worstPos.e <= 1e-6 * scale, `position off by ${check.worstPos.e} at ${JSON.stringify(check.worstPos)}`);
  assert.ok(check.worstDeg.deg <= 0.01, `normal off by ${check.worstDeg.deg}° at ${JSON.stringify(check.worstDeg)}`);
}

// ≥ 3 fixtures: skinned, morph-only, two skins, rigid node animation. `control` is the
// clip and time (fraction of its duration) where the negative control must fail.
const FIXTURES = [
  { name: 'Fox', model: 'Fox/Fox.glb', clips: ['Survey', 'Walk', 'Run'], control: { clip: 'Run', at: 2 / 3 } },
  { name: 'MorphStressTest', model: 'MorphStressTest/MorphStressTest.gltf', clips: ['Individuals', 'Pulse', 'TheWave'], control: { clip: 'TheWave', at: 2 / 3 } },
  { name: 'Kenney-MiniCharacters', model: 'Kenney-MiniCharacters/character-female-a.glb', clips: ['walk', 'sprint', 'die', 'attack-kick-right'], control: { clip: 'attack-kick-right', at: 2 / 3 } },
  { name: 'Kenney-PlatformerCharacter', model: 'Kenney-PlatformerCharacter/character.glb', clips: ['idle', 'walk', 'jump'], control: { clip: 'jump', at: 2 / 3 } },
  { name: 'RiggedSimple', model: 'RiggedSimple/rigged-simple.gltf', clips: ['animation_0'], control: { clip: 'animation_0', at: 1 / 3 } },
  // --delta second (the default; here explicit): loadVat undoes the stored differences on load; wrapped
  // into 3 bands so the undo restarts at every band's clips.
  { name: 'Fox-delta', model: 'Fox/Fox.glb', args: ['--delta', 'second', '--max-width', '700'], clips: ['Survey', 'Walk', 'Run'], control: { clip: 'Run', at: 2 / 3 } },
  // --max-size: 2 bands of 864 columns, 324 rows cut into array layers of at most 100
  // (4 of 81); the package reads the KTX2's layers as a DataArrayTexture.
  { name: 'Fox-layers', model: 'Fox/Fox.glb', args: ['--max-size', '1000x100'], clips: ['Walk', 'Run'], control: { clip: 'Run', at: 2 / 3 }, layers: 4 },
  // --normals separate (octahedral 16 + 16 in R, G of 4 more layers, from first_layer 4)
  // with the layers above; --normals none (the rest normals: only positions are checked).
  { name: 'Fox-normals-separate', model: 'Fox/Fox.glb', args: ['--normals', 'separate', '--max-size', '1000x100'], clips: ['Run'], control: { clip: 'Run', at: 2 / 3 }, layers: 4 },
  { name: 'Fox-normals-none', model: 'Fox/Fox.glb', args: ['--normals', 'none'], clips: ['Run'], control: { clip: 'Run', at: 2 / 3 } },
  // --rest-mesh meshopt: the rest GLB under EXT_meshopt_compression, read by loadVat through
  // a GLTFLoader given three.js's MeshoptDecoder (page/harness.js).
  // --fps auto: each clip at its own rate (the Fox's Survey 12 rows per second, Walk 48,
  // Run 60; the character's idle 9), checked between rows too (offRow, below).
  { name: 'Fox-fps-auto', model: 'Fox/Fox.glb', args: ['--fps', 'auto'], clips: ['Survey', 'Walk', 'Run'], control: { clip: 'Run', at: 2 / 3 }, offRow: true },
  { name: 'Kenney-PlatformerCharacter-fps-auto', model: 'Kenney-PlatformerCharacter/character.glb', args: ['--fps', 'auto'], clips: ['idle', 'walk', 'jump'], control: { clip: 'jump', at: 2 / 3 }, offRow: true },
  { name: 'Fox-rest-meshopt', model: 'Fox/Fox.glb', args: ['--rest-mesh', 'meshopt'], clips: ['Survey', 'Walk', 'Run'], control: { clip: 'Run', at: 2 / 3 } },
];

/**
 * Times of one clip: start, thirds, end and past the end (loops wrap, others hold), each
 * on a row (t = k / rate: what the texture stores), plus one halfway between two rows.
 */
function timesOf(clip) {
  const last = clip.rows - 1;
  const onRow = [0, Math.round(last / 3), Math.round((2 * last) / 3), last, last + Math.round(last / 4)].map((k) => ({ t: k / clip.rate, between: false }));
  const mid = Math.max(0, Math.floor(last / 2)) + 0.5;
  return last > 0 ? [...onRow, { t: mid / clip.rate, between: true }] : onRow;
}

/** The normals part of a texel check's line: none are stored with --normals none. */
const normalsNote = (check) => (check.worstDeg.deg < 0 ? 'normals not stored (the rest mesh\'s are drawn)' : `normals ${check.worstDeg.deg.toFixed(5)}°`);

let browser;
let server;
let bakeRoot;
const results = { browser: null, fixtures: {} };

before(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  for (const entry of fs.readdirSync(ARTIFACTS)) if (entry !== 'runtime' && entry !== 'features') fs.rmSync(path.join(ARTIFACTS, entry), { recursive: true, force: true });
  ({ browser, server, bakeRoot } = await openHarness(BIN, REPO));
  const { page } = browser;
  results.browser = await page.evaluate((s) => window.harness.init(s), SIZE);
  console.log(`# browser: ${JSON.stringify(results.browser)}`);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (bakeRoot && !process.env.VATBAKE_BROWSER_KEEP) fs.rmSync(bakeRoot, { recursive: true, force: true });
  if (Object.keys(results.fixtures).length) fs.writeFileSync(path.join(ARTIFACTS, 'results.json'), JSON.stringify(results, null, 2));
});

// The comparison that goes under the crowd in the README figure.
const README_SAMPLE = { fixture: 'Fox', clip: 'Run', index: 2 };
let readmeStrip = null;

const slug = (s) => s.replace(/[^A-Za-z0-9._-]+/g, '_');

for (const fixture of FIXTURES) {
  describe(fixture.name, () => {
    let info;
    const record = (results.fixtures[fixture.name] = { clips: {}, controls: [] });
    const page = () => browser.page;

    before(async () => {
      const urls = bakeFixture(BIN, bakeRoot, REPO, fixture);
      info = await page().evaluate((o) => window.harness.load(o), { descriptionUrl: urls.description, sourceUrl: urls.source, path: 'auto' });
      record.path = info.path;
      assert.equal(info.description.texture.layers ?? 1, fixture.layers ?? 1, 'array layers as the fixture asks');
    });

    test('the texture path plays the stored u16 values losslessly (every texel through the shader)', async (t) => {
      const d = info.description;
      if (!results.browser.norm16) assert.equal(info.path, 'integer', 'without EXT_texture_norm16 the page must take the RGBA16UI path');
      const check = await page().evaluate(() => window.harness.decodeCheck());
      const scale = maxCoordinate(d);
      record.decode = { path: info.path, ...check, scale };
      t.diagnostic(`${fixture.name} (${info.path}): ${check.samples} texels; max |GPU − float64 decode| ${check.worstPos.e.toExponential(2)} (= ${(check.worstPos.e / scale).toExponential(2)} × max |coordinate|), ${normalsNote(check)}`);
      assertLossless(check, scale);
    });

    test('the norm16 shader branch (fed t / 65535 through an RGBA32F texture) decodes every texel the same', async (t) => {
      // EXT_texture_norm16 is missing here, so three's RGBA16_EXT upload cannot run; this
      // runs the shader code that reads it on the values such a texture returns.
      const d = info.description;
      const check = await page().evaluate(() => window.harness.decodeCheck({ simulate: 'norm16' }));
      const scale = maxCoordinate(d);
      record.decodeNorm16Simulated = { ...check, scale };
      t.diagnostic(`${fixture.name} (norm16 branch, simulated): max |GPU − float64 decode| ${check.worstPos.e.toExponential(2)}, ${normalsNote(check)}`);
      assertLossless(check, scale);
    });

    test('control: a half-float copy of the texture is lossy, and the texel check sees it', async (t) => {
      const d = info.description;
      const check = await page().evaluate(() => window.harness.decodeCheck({ simulate: 'half' }));
      const scale = maxCoordinate(d);
      const diag = 2 * Math.hypot(...d.positions.half_extent);
      const step = d.positions.half_extent.map((h) => (2 * h) / 65535);
      const w = check.worstPos;
      record.halfFloat = { ...check, diag, steps: w.e / step['xyz'.indexOf(w.axis)] };
      t.diagnostic(`${fixture.name} (RGBA16F copy): max position error ${w.e.toExponential(2)} = ${(w.e / diag).toExponential(2)} × diagonal = ${record.halfFloat.steps.toFixed(1)} unorm16 steps; normals ${check.worstDeg.deg.toFixed(3)}°`);
      assert.ok(w.e > 1e-6 * scale, 'the lossless check would not notice a half-float upload');
    });

    test('the rest mesh bounds cover every frame: frustum culling cannot cut a unit', () => {
      const d = info.description;
      const { geometryMin, geometryMax, sphereRadius, cornerDistances } = info.bounds;
      const diag = 2 * Math.hypot(...d.positions.half_extent);
      const eps = 1e-5 * Math.max(diag, 1e-6);
      for (let a = 0; a < 3; a++) {
        const lo = d.positions.center[a] - d.positions.half_extent[a];
        const hi = d.positions.center[a] + d.positions.half_extent[a];
        assert.ok(geometryMin[a] <= lo + eps && geometryMax[a] >= hi - eps, `axis ${'xyz'[a]}: rest GLB box [${geometryMin[a]}, ${geometryMax[a]}] does not cover the animation's [${lo}, ${hi}]`);
      }
      for (const dist of cornerDistances) assert.ok(dist <= sphereRadius + eps, `InstancedMesh bounding sphere (r=${sphereRadius}) misses a bounds corner at ${dist}`);
    });

    for (const clipName of fixture.clips) {
      test(`clip "${clipName}": VAT and three.js silhouettes agree (IoU ≥ ${MIN_IOU})`, async (t) => {
        const clip = info.description.clips.find((c) => c.name === clipName);
        assert.ok(clip, `clip "${clipName}" is in the description`);
        const sources = clip.merged_from ?? [clip.source_index];
        const rows = [];
        for (const { t: time, between } of timesOf(clip)) {
          const vat = decodeMask(await page().evaluate(([c, tt]) => window.harness.renderVat(c, tt), [clipName, time]));
          const three = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sources, time, clip.loop]));
          const r = { t: time, between, ...iou(vat, three) };
          if (between) {
            // Between rows the VAT blends two stored poses linearly, which cuts chords
            // across fast rotations (Kenney's "die" turns 25° in 1/30 s). Its bar: the
            // 0.98, or at least as close to three.js as showing the nearer stored row.
            const frame = time * clip.rate;
            r.stepIoU = 0;
            for (const k of [Math.floor(frame), Math.ceil(frame)]) {
              const row = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sources, k / clip.rate, clip.loop]));
              r.stepIoU = Math.max(r.stepIoU, iou(row, three).iou);
            }
          }
          rows.push(r);
          const strip = writeComparison(SIZE, path.join(ARTIFACTS, fixture.name, `${slug(clipName)}-t${time.toFixed(3)}.png`), vat, three);
          if (fixture.name === README_SAMPLE.fixture && clipName === README_SAMPLE.clip && rows.length - 1 === README_SAMPLE.index) readmeStrip = strip;
        }
        record.clips[clipName] = rows;
        t.diagnostic(`${fixture.name} "${clipName}" (${clip.duration.toFixed(3)} s, loop ${clip.loop}): ` + rows.map((r) => `t=${r.t.toFixed(3)} IoU ${r.iou.toFixed(4)}` + (r.between ? ` (between rows; nearer stored row ${r.stepIoU.toFixed(4)})` : '')).join(', '));
        for (const r of rows) {
          assert.ok(r.vatPixels > 0.002 * SIZE * SIZE, `t=${r.t}: the VAT unit is (almost) not drawn: ${r.vatPixels} pixels`);
          const bar = r.between ? Math.min(MIN_IOU, r.stepIoU) : MIN_IOU;
          assert.ok(r.iou >= bar, `t=${r.t.toFixed(4)}${r.between ? ' (between rows)' : ''}: IoU ${r.iou.toFixed(4)} < ${bar.toFixed(4)} (VAT ${r.vatPixels} px, three.js ${r.threePixels} px); see artifacts/${fixture.name}/`);
        }
      });
    }

    if (fixture.offRow) {
      // Between rows, where --fps auto chose how far apart the rows are: at a quarter, a
      // half and three quarters of three segments of each clip, the unit as the runtime
      // plays it (interpolating) against three.js's SkinnedMesh at the same time: the
      // silhouettes agree (IoU ≥ 0.98) and no played point is farther from the nearest
      // three.js vertex than the error the bake recorded for the clip, plus 1e-4 of the
      // diagonal for float32 skinning and 16-bit quantization.
      test('between rows: interpolated playback against three.js (IoU and worst distance)', async (t) => {
        const d = info.description;
        const diag = 2 * Math.hypot(...d.positions.half_extent);
        const lines = [];
        for (const clipName of fixture.clips) {
          const clip = d.clips.find((c) => c.name === clipName);
          assert.ok(clip.auto_rate, `clip "${clipName}" records the rate --fps auto chose`);
          const sources = clip.merged_from ?? [clip.source_index];
          const last = clip.rows - 1;
          const segments = [0, Math.floor(last / 2), last - 1].filter((k, i, all) => k >= 0 && all.indexOf(k) === i);
          const times = segments.flatMap((k) => [0.25, 0.5, 0.75].map((f) => (k + f) / clip.rate));
          const distances = await page().evaluate(([c, s, l, ts]) => window.harness.offRowDistance(c, s, l, ts), [clipName, sources, clip.loop, times]);
          const bound = clip.auto_rate.max_error + 1e-4 * diag;
          for (const r of distances) {
            const vat = decodeMask(await page().evaluate(([c, tt]) => window.harness.renderVat(c, tt), [clipName, r.t]));
            const three = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sources, r.t, clip.loop]));
            r.iou = iou(vat, three).iou;
            writeComparison(SIZE, path.join(ARTIFACTS, fixture.name, `between-${slug(clipName)}-t${r.t.toFixed(4)}.png`), vat, three);
          }
          record.clips[`${clipName} (between rows)`] = distances;
          const worst = Math.max(...distances.map((r) => r.worst));
          const lowest = Math.min(...distances.map((r) => r.iou));
          lines.push(`"${clipName}" ${clip.auto_rate.fps} rows/s: IoU ≥ ${lowest.toFixed(4)}, worst ${(worst / diag).toExponential(2)} of the diagonal (bake recorded ${(clip.auto_rate.max_error / diag).toExponential(2)})`);
          for (const r of distances) {
            assert.ok(r.iou >= MIN_IOU, `"${clipName}" t=${r.t.toFixed(4)} (between rows ${r.row} and ${r.row + 1}): IoU ${r.iou.toFixed(4)} < ${MIN_IOU}`);
            assert.ok(r.worst <= bound, `"${clipName}" t=${r.t.toFixed(4)}: a played point is ${r.worst} from three.js's nearest vertex, past ${bound}`);
          }
        }
        t.diagnostic(`${fixture.name}: ${lines.join('; ')}`);
      });
    }

    test(`negative control: clip "${fixture.control.clip}" played at the wrong speed falls below IoU ${MIN_IOU}`, async (t) => {
      const clip = info.description.clips.find((c) => c.name === fixture.control.clip);
      const sources = clip.merged_from ?? [clip.source_index];
      const time = Math.round(fixture.control.at * (clip.rows - 1)) / clip.rate; // on a row
      const three = decodeMask(await page().evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sources, time, clip.loop]));
      for (const speed of WRONG_SPEEDS) {
        const vat = decodeMask(await page().evaluate(([c, tt, sp]) => window.harness.renderVat(c, tt, { speed: sp }), [clip.name, time, speed]));
        const r = { clip: clip.name, t: time, speed, ...iou(vat, three) };
        record.controls.push(r);
        writeComparison(SIZE, path.join(ARTIFACTS, fixture.name, `control-${slug(clip.name)}-speed${speed}.png`), vat, three);
      }
      t.diagnostic(`${fixture.name} "${clip.name}" at t=${time.toFixed(3)}: ` + record.controls.map((r) => `speed ×${r.speed} IoU ${r.iou.toFixed(4)}`).join(', '));
      for (const r of record.controls) assert.ok(r.iou < MIN_IOU, `VAT at ×${r.speed} speed still matched three.js (IoU ${r.iou.toFixed(4)}): this time cannot tell speeds apart`);
    });
  });
}

test('the example page plays 24 units with per-instance offsets (README figure)', async (t) => {
  const example = await browser.context.newPage();
  const errors = [];
  example.on('pageerror', (e) => errors.push(e.message));
  const W = 3 * SIZE + 8; // as wide as a comparison strip
  const H = Math.round(W / 2);
  try {
    await example.setViewportSize({ width: W, height: H });
    const vatUrl = '/bake/Fox/Fox.vat.json';
    await example.goto(`${server.url}/example/index.html?vat=${encodeURIComponent(vatUrl)}&count=24&t=1.7&w=${W}&h=${H}&ui=0`);
    const state = await example.evaluate(async () => {
      const { path } = await window.vatExample;
      const canvas = document.querySelector('canvas');
      const gl = canvas.getContext('webgl2'); // the page's own context (preserveDrawingBuffer when frozen)
      const px = new Uint8Array(canvas.width * canvas.height * 4);
      gl.readPixels(0, 0, canvas.width, canvas.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
      let s = '';
      for (let i = 0; i < px.length; i += 0x8000) s += String.fromCharCode(...px.subarray(i, i + 0x8000));
      return { path, width: canvas.width, height: canvas.height, pixels: btoa(s) };
    });
    assert.deepEqual(errors, [], 'no page errors');
    if (!results.browser.norm16) assert.equal(state.path, 'integer', 'without EXT_texture_norm16 the example takes the RGBA16UI path');
    assert.deepEqual([state.width, state.height], [W, H]);
    const bottomUp = new Uint8Array(Buffer.from(state.pixels, 'base64'));
    const crowd = new Uint8Array(W * H * 4);
    for (let y = 0; y < H; y++) crowd.set(bottomUp.subarray((H - 1 - y) * W * 4, (H - y) * W * 4), y * W * 4);
    // Fox fur is orange: count clearly orange pixels (r > g + 40 > b + 40) to see the units drawn.
    let fur = 0;
    for (let i = 0; i < W * H; i++) if (crowd[i * 4] > crowd[i * 4 + 1] + 40 && crowd[i * 4 + 1] > crowd[i * 4 + 2] + 20) fur++;
    t.diagnostic(`example page: texture path ${state.path}; ${((100 * fur) / (W * H)).toFixed(1)}% of the frame is fox`);
    assert.ok(fur > 0.03 * W * H, `the example drew almost no fox (${fur} orange pixels)`);
    fs.writeFileSync(path.join(ARTIFACTS, 'example-fox-crowd.png'), encodePng(W, H, crowd));
    // README figure: the crowd above one comparison (Fox "Run", VAT | three.js | overlay).
    if (readmeStrip) {
      const gap = 6;
      const figure = new Uint8Array(W * (H + gap + SIZE) * 4).fill(255);
      figure.set(crowd, 0);
      for (let i = H * W; i < (H + gap) * W; i++) figure.set([27, 29, 34, 255], i * 4);
      figure.set(readmeStrip, (H + gap) * W * 4);
      fs.writeFileSync(path.join(ARTIFACTS, 'readme-three-playback.png'), encodePng(W, H + gap + SIZE, figure));
    }
  } finally {
    await example.close();
  }
});
