// The package as published: what `npm pack` puts in, and types for every export.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as api from '../src/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('npm pack holds the sources, the types, README and LICENSE, and no tests', () => {
  const run = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const [pack] = JSON.parse(run.stdout);
  const files = pack.files.map((f) => f.path).sort();
  assert.equal(pack.name, '@vatbake/three');
  for (const f of ['LICENSE', 'README.md', 'index.d.ts', 'package.json', 'src/clips.js', 'src/delta.js', 'src/glsl.js', 'src/index.js', 'src/load.js', 'src/mesh.js', 'src/crowd.js', 'src/bones.js', 'src/impostor.js']) {
    assert.ok(files.includes(f), `${f} is packed (have ${files.join(', ')})`);
  }
  assert.deepEqual(files.filter((f) => f.startsWith('test/') || f.includes('node_modules')), []);
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.license, 'MIT');
  assert.match(fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8'), /^MIT License/);
});

test('index.d.ts declares every export of src/index.js', () => {
  const types = fs.readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8');
  const declared = new Set([...types.matchAll(/^export (?:declare )?(?:function|class|const) (\w+)/gm)].map((m) => m[1]));
  const missing = Object.keys(api).filter((name) => !declared.has(name));
  assert.deepEqual(missing, []);
  const extra = [...declared].filter((name) => !(name in api));
  assert.deepEqual(extra, []);
});

test('index.d.ts type-checks the documented use under TypeScript strict, against @types/three', () => {
  // Checking all of @types/three takes ~20 s; skipLibCheck skips it, but also skips every
  // .d.ts, ours included. So index.d.ts is checked as a .ts module (its declarations
  // marked `declare`), next to test/types/use.ts importing it, in a folder under
  // node_modules (where `three` resolves) that is made for the check.
  const dir = path.join(ROOT, 'node_modules', '.vatbake-types-check');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const api = fs.readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8').replace(/^export (function|const|class) /gm, 'export declare $1 ');
  fs.writeFileSync(path.join(dir, 'api.ts'), api);
  fs.writeFileSync(path.join(dir, 'use.ts'), fs.readFileSync(path.join(ROOT, 'test', 'types', 'use.ts'), 'utf8').replace("from '@vatbake/three'", "from './api.js'"));
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'types', 'tsconfig.json'), 'utf8'));
  config.compilerOptions.skipLibCheck = true;
  config.files = ['api.ts', 'use.ts'];
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module", "private": true }');
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(api, /export declare class VatMesh /, 'the declarations were found');
});
