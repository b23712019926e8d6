// The page in headless Chromium (tests/browser's launcher: Debian's chromium and
// playwright-core): a bundled fixture through the file input is baked in the Worker;
// the texture's sha256 is the native binary's for the same file; the summary, the three
// downloads and the playback are there; a bad file ends with the CLI's error code, not a
// hung Worker.
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
    assert.match(await page.textContent('#summary'), /^1728 points × 162 rows in 3 clips; texture 1728×162, 339085 bytes; baked in \d+ ms/);
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
