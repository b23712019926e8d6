// `vite build` of this example with the plugin: the Fox imported with ?vat is baked at
// build time; the emitted texture and rest mesh are the native binary's bytes for the
// same settings, and the bundle imports their URLs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');
const native = process.env.VATBAKE_BIN || path.join(root, 'target/debug/vatbake');
const sha = (file) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

test('vite build bakes Fox.glb?vat as the native binary does', async () => {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-vite-'));
  const nativeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-vite-native-'));
  try {
    await build({ root: here, build: { outDir, emptyOutDir: true }, logLevel: 'warn' });
    const source = path.join(root, 'fixtures/Fox/Fox.glb');
    const n = spawnSync(native, ['bake', source, '-o', nativeDir, '--zstd-level', '9'], { encoding: 'utf8' });
    assert.equal(n.status, 0, n.stderr);
    for (const file of ['Fox.vat.ktx2', 'Fox.rest.glb']) {
      assert.equal(sha(path.join(outDir, 'vat', file)), sha(path.join(nativeDir, file)), file);
    }
    const bundle = fs.readdirSync(path.join(outDir, 'assets')).find((f) => f.endsWith('.js'));
    const js = fs.readFileSync(path.join(outDir, 'assets', bundle), 'utf8');
    assert.match(js, /\/vat\/Fox\.vat\.ktx2/);
    assert.match(js, /\/vat\/Fox\.rest\.glb/);
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.rmSync(nativeDir, { recursive: true, force: true });
  }
});

test('a bad model fails the build with the CLI message and code', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-vite-bad-'));
  try {
    fs.writeFileSync(path.join(dir, 'bad.glb'), 'nope');
    fs.writeFileSync(path.join(dir, 'index.html'), '<script type="module" src="/main.js"></script>');
    fs.writeFileSync(path.join(dir, 'main.js'), "import bad from './bad.glb?vat'; console.log(bad);");
    const plugin = (await import('./vatbake-plugin.mjs')).default;
    await assert.rejects(
      build({ root: dir, configFile: false, plugins: [plugin({ package: '../../index.js' })], logLevel: 'silent', build: { outDir: path.join(dir, 'dist') } }),
      /bad\.glb: not a glTF model.*\(exit code 3\)/s,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
