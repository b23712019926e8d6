// The page in headless Chromium (tests/browser's launcher: Debian's chromium and
// playwright-core): a bundled fixture through the file input is baked in the Worker;
// the texture's sha256 is the native binary's for the same file; the summary, the three
// downloads and the playback are there; a bad file ends with the CLI's error code, not a
// hung Worker. Then the page's three downloads are played through @vatbake/three in
// tests/browser's harness against three.js's SkinnedMesh playing the source, and their
// silhouettes compared (IoU) as tests/browser/playback.test.mjs compares the native bakes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../../../tests/browser/lib/browser.mjs';
import { checkedRows, decodeMask, fixture, iou, MIN_IOU, openHarness, SIZE, sourcesOf } from '../../../tests/browser/lib/compare.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const native = process.env.VATBAKE_BIN || path.join(root, 'target/debug/vatbake');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

function serve() {
  const server = http.createServer((req, res) => {
    const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

// The page's three files (name → bytes), read from its download links by the first test.
let baked = null;

test('the page bakes Fox.glb in a Worker as the native binary does', async () => {
  const server = await serve();
  const browser = await launch();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-page-'));
  try {
    const { page } = browser;
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${server.address().port}/runtimes/cli/web/index.html`);
    const source = path.join(root, 'fixtures/Fox/Fox.glb');
    await page.setInputFiles('#file', source);
    await page.waitForFunction(() => ['baked', 'error'].includes(document.body.dataset.state), null, { timeout: 120_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'baked', await page.textContent('#error'));
    const links = await page.$$eval('#downloads a', (as) => Object.fromEntries(as.map((a) => [a.download, a.dataset.sha256])));
    assert.deepEqual(Object.keys(links).sort(), ['Fox.rest.glb', 'Fox.vat.json', 'Fox.vat.ktx2']);
    fs.copyFileSync(source, path.join(dir, 'Fox.glb'));
    const n = spawnSync(native, ['bake', path.join(dir, 'Fox.glb'), '-o', path.join(dir, 'out')], { encoding: 'utf8' });
    assert.equal(n.status, 0, n.stderr);
    const sha = (f) => createHash('sha256').update(fs.readFileSync(path.join(dir, 'out', f))).digest('hex');
    assert.equal(links['Fox.vat.ktx2'], sha('Fox.vat.ktx2'));
    assert.equal(links['Fox.rest.glb'], sha('Fox.rest.glb'));
    // The downloads' bytes, as the page offers them (the files the playback test draws).
    const files = await page.$$eval('#downloads a', (as) =>
      Promise.all(as.map(async (a) => {
        const bytes = new Uint8Array(await (await fetch(a.href)).arrayBuffer());
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return [a.download, btoa(s)];
      })),
    );
    baked = Object.fromEntries(files.map(([name, b64]) => [name, Buffer.from(b64, 'base64')]));
    for (const [name, bytes] of Object.entries(baked)) assert.equal(createHash('sha256').update(bytes).digest('hex'), links[name], name);
    assert.match(await page.textContent('#summary'), /^1728 points × 162 rows in 3 clips; texture 1728×162, 316950 bytes; baked in \d+ ms/);
    await page.waitForFunction(() => document.body.dataset.playing, null, { timeout: 60_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.playing), 'Survey');
    console.log(`# page: first bake ${await page.evaluate(() => document.body.dataset.bakeMs)} ms (Worker start, module compile, bake)`);

    await page.setInputFiles('#file', { name: 'bad.glb', mimeType: 'model/gltf-binary', buffer: Buffer.from('nope') });
    await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 60_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.errorCode), '3');
    assert.match(await page.textContent('#error'), /error 3 \(input\): \/in\/bad\.glb: not a glTF model/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The page's bake through @vatbake/three against three.js's own SkinnedMesh and
// AnimationMixer playing Fox.glb, in tests/browser's harness (its camera, SIZE and
// MIN_IOU): every clip at its first, third, two-thirds and last rows. The control: the
// VAT played 0.8× and 1.25× too fast falls below the bar (the measurement sees a wrong
// rate), as in tests/browser/playback.test.mjs.
test("the page's bake plays as three.js's SkinnedMesh does (silhouette IoU)", async (t) => {
  assert.ok(baked, 'the bake test above did not leave the page\'s files');
  const fox = fixture('Fox');
  const { browser, server, bakeRoot } = await openHarness(native, root);
  try {
    fs.mkdirSync(path.join(bakeRoot, 'page'));
    for (const [name, bytes] of Object.entries(baked)) fs.writeFileSync(path.join(bakeRoot, 'page', name), bytes);
    const { page } = browser;
    await page.evaluate((s) => window.harness.init(s), SIZE);
    const info = await page.evaluate((o) => window.harness.load(o), { descriptionUrl: '/bake/page/Fox.vat.json', sourceUrl: `/fixtures/${fox.model}` });
    const vatMask = async (clip, time, options = {}) => decodeMask(await page.evaluate(([c, tt, o]) => window.harness.renderVat(c, tt, o), [clip, time, options]));
    const threeMask = async (clip, time) => decodeMask(await page.evaluate(([s, tt, l]) => window.harness.renderSource(s, tt, l), [sourcesOf(clip), time, clip.loop]));
    const rows = [];
    for (const clip of info.description.clips) {
      for (const k of checkedRows(clip)) {
        const time = k / clip.rate;
        rows.push({ clip: clip.name, row: k, ...iou(await vatMask(clip.name, time), await threeMask(clip, time)) });
      }
    }
    assert.deepEqual([...new Set(rows.map((r) => r.clip))], ['Survey', 'Walk', 'Run']);
    const lowest = rows.reduce((a, b) => (b.iou < a.iou ? b : a));
    t.diagnostic(`page's bake: ${rows.length} rows in ${info.description.clips.length} clips, IoU lowest ${lowest.iou.toFixed(4)} (${lowest.clip} row ${lowest.row}), mean ${(rows.reduce((a, r) => a + r.iou, 0) / rows.length).toFixed(4)}`);
    for (const r of rows) {
      assert.ok(r.vatPixels > 0.002 * SIZE * SIZE, `${r.clip} row ${r.row}: the VAT unit is (almost) not drawn (${r.vatPixels} pixels)`);
      assert.ok(r.iou >= MIN_IOU, `${r.clip} row ${r.row}: IoU ${r.iou.toFixed(4)} < ${MIN_IOU} (VAT ${r.vatPixels} px, three.js ${r.threePixels} px)`);
    }
    const clip = info.description.clips.find((c) => c.name === fox.control.clip);
    const time = Math.round(fox.control.at * (clip.rows - 1)) / clip.rate;
    const three = await threeMask(clip, time);
    for (const speed of [0.8, 1.25]) {
      const wrong = iou(await vatMask(clip.name, time, { speed }), three).iou;
      t.diagnostic(`control: "${clip.name}" at ×${speed} speed, IoU ${wrong.toFixed(4)}`);
      assert.ok(wrong < MIN_IOU, `the VAT at ×${speed} speed still matched three.js (IoU ${wrong.toFixed(4)}): this time cannot tell speeds apart`);
    }
  } finally {
    await browser.close();
    await server.close();
    fs.rmSync(bakeRoot, { recursive: true, force: true });
  }
});
