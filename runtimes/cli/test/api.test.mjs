// bake(bytes, options) against the native binary's files for the same model and
// settings, and its errors as objects with the command line's codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { bake, BakeError } = require('../index.js');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const native = process.env.VATBAKE_BIN || path.join(root, 'target/debug/vatbake');
const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');

test('bake(Fox.glb bytes) gives the native texture and rest mesh', () => {
  const source = path.join(root, 'fixtures/Fox/Fox.glb');
  const result = bake(fs.readFileSync(source), { name: 'Fox', zstdLevel: 9 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-api-test-'));
  try {
    fs.copyFileSync(source, path.join(dir, 'Fox.glb'));
    const n = spawnSync(native, ['bake', 'Fox.glb', '-o', 'out', '--zstd-level', '9'], { cwd: dir, encoding: 'utf8' });
    assert.equal(n.status, 0, n.stderr);
    assert.equal(sha(result.texture), sha(fs.readFileSync(path.join(dir, 'out/Fox.vat.ktx2'))));
    assert.equal(sha(result.restMesh), sha(fs.readFileSync(path.join(dir, 'out/Fox.rest.glb'))));
    assert.equal(sha(result.descriptionBytes), sha(fs.readFileSync(path.join(dir, 'out/Fox.vat.json'))));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(result.report.points, 1728);
  assert.equal(result.report.rows, 162);
  assert.equal(result.description.texture.bytes ?? result.texture.length, result.texture.length);
});

test('errors are objects with the command line codes', () => {
  assert.throws(
    () => bake(new TextEncoder().encode('nope'), { name: 'bad' }),
    (e) => e instanceof BakeError && e.code === 3 && e.kind === 'input' && e.file === 'bad.glb' && /not a glTF model/.test(e.message),
  );
  assert.throws(
    () => bake(fs.readFileSync(path.join(root, 'fixtures/Fox/Fox.glb')), { zstdLevel: 99 }),
    (e) => e instanceof BakeError && e.code === 2 && /--zstd-level 99/.test(e.message),
  );
  assert.throws(() => bake(new Uint8Array(4), { name: '../x' }), TypeError);
});
