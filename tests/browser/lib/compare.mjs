// What the browser tests share: bake a fixture with the vatbake binary, decode the masks
// the page returns, compare them (IoU) and write the comparison images.
import { before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { encodePng } from './png.mjs';
import { launch } from './browser.mjs';
import { serve } from './server.mjs';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The repository, the vatbake binary (VATBAKE_BIN overrides), a test's artifacts folder. */
export const REPO = path.resolve(HERE, '..', '..');
export const BIN = process.env.VATBAKE_BIN || path.join(REPO, 'target', 'debug', 'vatbake');
export const artifactsDir = (name = '') => path.join(HERE, 'artifacts', name);
/** Canvas pixels a side (SwiftShader is a software rasterizer: keep it small). */
export const SIZE = 256;
/**
 * Silhouette agreement every player must reach on a stored row, as intersection over
 * union of the covered pixels. The measured IoU there is 0.9993 or more: 0.98 leaves room
 * for a few edge pixels rasterized differently, and playing a clip 20% off its rate drops
 * it to 0.968 or less on playback.test.mjs's control clips (see README).
 */
export const MIN_IOU = 0.98;

/**
 * Fixtures by name: the model under fixtures/, and for the tests whose control draws the
 * wrong rows (bones, babylon-target) the clip and the point of it (a fraction of its
 * rows) where the control is drawn. `fixture(name, extra)` adds the name and `extra`.
 */
const FIXTURES = {
  Fox: { model: 'Fox/Fox.glb', control: { clip: 'Run', at: 2 / 3 } },
  CesiumMan: { model: 'CesiumMan/glTF-Binary/CesiumMan.glb', control: { clip: 'animation_0', at: 1 / 3 } },
  'Kenney-MiniCharacters': { model: 'Kenney-MiniCharacters/character-female-a.glb', control: { clip: 'die', at: 1 / 2 } },
  'Kenney-PlatformerCharacter': { model: 'Kenney-PlatformerCharacter/character.glb', control: { clip: 'jump', at: 2 / 3 } },
  MorphStressTest: { model: 'MorphStressTest/MorphStressTest.gltf', control: { clip: 'TheWave', at: 2 / 3 } },
  RiggedSimple: { model: 'RiggedSimple/rigged-simple.gltf', control: { clip: 'animation_0', at: 1 / 3 } },
};
export const fixture = (name, extra = {}) => ({ name, ...FIXTURES[name], ...extra });

/**
 * Serve the page (page/index.html), the pinned packages it imports (three, the runtime
 * package, PlayCanvas, Babylon.js, ktx-parse, fzstd), the examples, the fixtures and a
 * fresh bake folder on 127.0.0.1; open headless Chromium on the page with `modules`
 * (page/main.js imports ./<module>.js for each), page errors echoed. Resolves to
 * { browser, server, bakeRoot } once every module has run. `mounts`: more [prefix, folder]
 * pairs to serve; `three`: another three.js package folder to serve as /three/.
 */
export async function openHarness(BIN, REPO, { modules = ['harness'], mounts = [], three = null } = {}) {
  if (!fs.existsSync(BIN)) throw new Error(`vatbake binary not found at ${BIN}: run \`cargo build -p vatbake\` first, or set VATBAKE_BIN`);
  const bakeRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-browser-'));
  const packages = path.join(HERE, 'node_modules');
  const server = await serve([
    ...mounts,
    ['/harness/', path.join(HERE, 'page')],
    ['/three/', three ?? path.join(packages, 'three')],
    ['/playcanvas/', path.join(packages, 'playcanvas')],
    ['/babylon/core/', path.join(packages, '@babylonjs', 'core')],
    ['/babylon/loaders/', path.join(packages, '@babylonjs', 'loaders')],
    ['/ktx-parse/', path.join(packages, 'ktx-parse')],
    ['/fzstd/', path.join(packages, 'fzstd')],
    ['/example/node_modules/', packages], // the same pinned three as the example's
    ['/example/node_modules/@vatbake/three/', path.join(REPO, 'runtimes', 'three')], // the example's file: dependency
    ['/vatbake-three/', path.join(REPO, 'runtimes', 'three')],
    ['/example/', path.join(REPO, 'docs', 'examples', 'three')],
    ['/fixtures/', path.join(REPO, 'fixtures')],
    ['/bake/', bakeRoot],
  ]);
  const browser = await launch();
  const { page } = browser;
  page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
  page.on('response', (r) => r.status() >= 400 && console.error(`[page HTTP ${r.status()}] ${r.url()}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') console.error(`[page ${m.type()}] ${m.text()}`);
  });
  await page.goto(`${server.url}/harness/index.html?modules=${modules.join(',')}`);
  await page.waitForFunction(() => window.pageReady === true, null, { timeout: 120_000 });
  return { browser, server, bakeRoot };
}

/**
 * Bake `fixture` ({ name, model, args, allPoints }) into bakeRoot/<name> (with
 * `--points all` unless `allPoints` is false). Returns the URLs the page loads it from
 * (`description`, `source`, the folder `base`), the folder `dir`, the file stem and the
 * parsed description `json`.
 */
export function bakeFixture(BIN, bakeRoot, REPO, fixture) {
  const out = path.join(bakeRoot, fixture.name);
  const model = path.join(REPO, 'fixtures', fixture.model);
  const args = ['bake', model, '-o', out, ...(fixture.allPoints === false ? [] : ['--points', 'all']), '-q', ...(fixture.args ?? [])];
  const run = spawnSync(BIN, args, { encoding: 'utf8' });
  if (run.error || run.status !== 0) throw new Error(`${BIN} ${args.join(' ')} failed (${run.error?.message ?? run.status}):\n${run.stderr}`);
  const stem = path.basename(model).replace(/\.[^.]+$/, '');
  const json = JSON.parse(fs.readFileSync(path.join(out, `${stem}.vat.json`), 'utf8'));
  const base = `/bake/${fixture.name}/`;
  return { description: `${base}${stem}.vat.json`, source: `/fixtures/${fixture.model}`, base, dir: out, stem, json };
}

export const decodeMask = (b64) => new Uint8Array(Buffer.from(b64, 'base64'));

/** Stored rows of a clip the player tests compare: the first, the thirds and the last. */
export function checkedRows(clip) {
  const last = clip.rows - 1;
  return [...new Set([0, Math.round(last / 3), Math.round((2 * last) / 3), last])];
}

/** The source animations a clip was baked from (several when clips were merged). */
export const sourcesOf = (clip) => clip.merged_from ?? [clip.source_index];

/** The description's clip `name` (an error when it has none), its source animations and its checkedRows. */
export function clipToCheck(description, name) {
  const clip = description.clips.find((c) => c.name === name);
  if (!clip) throw new Error(`clip "${name}" is not in the description`);
  return { clip, sources: sourcesOf(clip), rows: checkedRows(clip) };
}

export function iou(a, b) {
  let inter = 0;
  let union = 0;
  let countA = 0;
  let countB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] !== 0;
    const y = b[i] !== 0;
    if (x && y) inter++;
    if (x || y) union++;
    if (x) countA++;
    if (y) countB++;
  }
  return { iou: union ? inter / union : 0, union, vatPixels: countA, threePixels: countB };
}

/** SIZE × SIZE masks side by side: VAT | three.js | overlay (white both, magenta VAT only, green three.js only). */
export function writeComparison(SIZE, file, vat, three) {
  const w = SIZE * 3 + 8;
  const rgba = new Uint8Array(w * SIZE * 4).fill(0);
  for (let i = 0; i < w * SIZE; i++) rgba[i * 4 + 3] = 255;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const m = y * SIZE + x;
      const put = (px, r, g, b) => rgba.set([r, g, b, 255], (y * w + px) * 4);
      if (vat[m]) put(x, 255, 255, 255);
      if (three[m]) put(SIZE + 4 + x, 255, 255, 255);
      const o = 2 * (SIZE + 4) + x;
      if (vat[m] && three[m]) put(o, 255, 255, 255);
      else if (vat[m]) put(o, 255, 0, 255);
      else if (three[m]) put(o, 0, 255, 0);
    }
    for (const sep of [SIZE, SIZE + 1, SIZE + 2, SIZE + 3, 2 * SIZE + 4, 2 * SIZE + 5, 2 * SIZE + 6, 2 * SIZE + 7]) rgba.set([60, 60, 60, 255], (y * w + sep) * 4);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, encodePng(w, SIZE, rgba));
  return rgba;
}


/**
 * One browser session for a test file (node:test hooks): before the tests the page is
 * opened with `modules` (and openHarness's `mounts` and `three`) and `init(page)` runs (default: the harness's init at `size`);
 * `artifacts`, when given, is emptied first. At the end the browser closes, the bakes
 * are removed (unless VATBAKE_BROWSER_KEEP) and `results`, when given, is written to
 * artifacts/results.json. Returns the session: { page(), files(fixture) (bakeFixture's
 * answer), bake(fixture) → { description, urls } (baked, read from disk and loaded in
 * the harness; `frameFrom` frames it from another bake's bounds) }.
 */
export function browserSession({ BIN, REPO, artifacts = null, size, results = null, modules = ['harness'], mounts = [], three = null, init = null }) {
  let state = null;
  const page = () => state.browser.page;
  before(async () => {
    if (artifacts) {
      fs.rmSync(artifacts, { recursive: true, force: true });
      fs.mkdirSync(artifacts, { recursive: true });
    }
    state = await openHarness(BIN, REPO, { modules, mounts, three });
    if (init) await init(page());
    else await page().evaluate((s) => window.harness.init(s), size);
  });
  after(async () => {
    await state?.browser.close();
    await state?.server.close();
    if (state?.bakeRoot && !process.env.VATBAKE_BROWSER_KEEP) fs.rmSync(state.bakeRoot, { recursive: true, force: true });
    if (artifacts && results) fs.writeFileSync(path.join(artifacts, 'results.json'), JSON.stringify(results, null, 2));
  });
  const files = (fixture) => bakeFixture(BIN, state.bakeRoot, REPO, fixture);
  return {
    page,
    files,
    async bake(fixture, frameFrom = null) {
      const urls = files(fixture);
      await page().evaluate((o) => window.harness.load(o), { descriptionUrl: urls.description, sourceUrl: urls.source, frameFrom });
      return { description: urls.json, urls };
    },
  };
}
