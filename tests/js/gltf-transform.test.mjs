// The rest mesh through gltf-transform (the npm package @gltf-transform/cli, pinned in
// package.json): which of its commands keep the column uv (TEXCOORD_1), the float
// positions and every vertex, and what `vatbake inspect` and `verify` say about each
// file that does not (docs/PLAYBACK.md, "Optimizers"). The CLI runs once per case, all
// at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { bake, vatbakeBin, FIXTURES } from './lib/bake.mjs';
import { glbAttribute, readGlb } from './lib/glb.mjs';

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules', '.bin', 'gltf-transform');

// The options docs/PLAYBACK.md gives for `optimize`: each of these five off keeps the
// column uv, the floats and every vertex (the two bounds corners included).
const KEEP = ['--compress', 'false', '--prune-attributes', 'false', '--weld', 'false', '--simplify', 'false', '--join', 'false', '--texture-compress', 'false'];

const CASES = {
  optimize: ['optimize'],
  keep: ['optimize', ...KEEP],
  quantize: ['quantize'],
  meshopt: ['meshopt'],
  weld: ['weld'],
};

function vatbake(...args) {
  const run = spawnSync(vatbakeBin(), args, { encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The bake's folder with its rest mesh replaced by `mesh`: what a pipeline ships. */
function shipped(bakeDir, mesh, name) {
  const dir = path.join(bakeDir, name);
  fs.mkdirSync(dir);
  for (const f of ['Fox.vat.json', 'Fox.vat.ktx2']) fs.copyFileSync(path.join(bakeDir, f), path.join(dir, f));
  fs.copyFileSync(mesh, path.join(dir, 'Fox.rest.glb'));
  return path.join(dir, 'Fox.vat.json');
}

test('gltf-transform: what each command does to the column uv, and what inspect and verify say', async (t) => {
  // The Fox, every point baked.
  const source = path.join(FIXTURES, 'Fox/Fox.glb');
  const { description } = bake(source);
  const dir = path.dirname(description);
  const rest = path.join(dir, 'Fox.rest.glb');
  const started = Date.now();
  const out = {};
  await Promise.all(
    Object.entries(CASES).map(async ([name, args]) => {
      out[name] = path.join(dir, `${name}.rest.glb`);
      await promisify(execFile)(CLI, [args[0], rest, out[name], ...args.slice(1)]);
    }),
  );
  t.diagnostic(`gltf-transform, ${Object.keys(CASES).length} runs at once: ${Date.now() - started} ms`);
  const inspect = (name) => vatbake('inspect', out[name]);
  const verify = (name) => {
    const run = vatbake('verify', shipped(dir, out[name], name), '--source', source, '--json');
    return { code: run.code, report: JSON.parse(run.stdout || 'null'), stderr: run.stderr };
  };
  const codes = (report) => report.findings.map((f) => f.code).sort();

  // optimize with its defaults: the column uv is pruned as an attribute no material reads.
  const gone = 'primitive 0 has no TEXCOORD_1, the column uv each vertex finds its texture column by';
  const attributes = (file) => Object.keys(readGlb(new Uint8Array(fs.readFileSync(file))).json.meshes[0].primitives[0].attributes);
  assert.ok(!attributes(out.optimize).includes('TEXCOORD_1'), 'optimize keeps TEXCOORD_1');
  assert.ok(attributes(rest).includes('TEXCOORD_1'));
  let run = inspect('optimize');
  assert.equal(run.code, 2, run.stderr);
  assert.ok(run.stderr.includes(gone), run.stderr);
  let v = verify('optimize');
  assert.equal(v.code, 1, v.stderr);
  assert.ok(v.report.findings.some((f) => f.code === 'rest-mesh' && f.message.includes(gone)), JSON.stringify(v.report));

  // quantize and meshopt: positions as 16-bit integers.
  for (const name of ['quantize', 'meshopt']) {
    run = inspect(name);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /holds positions quantized to signed 16-bit values \(KHR_mesh_quantization/, run.stderr);
    v = verify(name);
    assert.equal(v.code, 1);
    assert.ok(v.report.findings.some((f) => f.code === 'rest-mesh' && f.message.includes('quantized')), name);
  }

  // weld: every vertex reads its own column still (no two share one), but the two bounds
  // corners no triangle uses are gone.
  run = inspect('weld');
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stdout.includes('1728 vertices (1728 texture columns + 0 bounds corners)'), run.stdout);
  assert.ok(run.stdout.includes('warning: not the 2 bounds corners a bake writes'), run.stdout);
  v = verify('weld');
  assert.equal(v.code, 1);
  assert.deepEqual(codes(v.report), ['mesh-sha256', 'rest-mesh']);
  assert.ok(v.report.findings.find((f) => f.code === 'rest-mesh').message.includes("1728 vertices, where 1728 points and the 2 bounds corners make 1730 (an optimizer's weld"));

  // The options that keep it: every vertex, the column uv the same floats in the same order.
  assert.deepEqual(Array.from(glbAttribute(out.keep, 'TEXCOORD_1')), Array.from(glbAttribute(rest, 'TEXCOORD_1')));
  assert.deepEqual(Array.from(glbAttribute(out.keep, 'POSITION')), Array.from(glbAttribute(rest, 'POSITION')));
  run = inspect('keep');
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stdout.includes('1730 vertices (1728 texture columns + 2 bounds corners)'), run.stdout);
  assert.ok(!run.stdout.includes('warning'), run.stdout);
  // verify plays every clip through it; the one finding is that another tool rewrote it.
  v = verify('keep');
  assert.deepEqual(codes(v.report), ['mesh-sha256']);
  assert.ok(v.report.findings[0].message.includes('glTF-Transform v4.5.1 rewrote it after the bake'), v.report.findings[0].message);
  assert.deepEqual(v.report.clips.map((c) => [c.name, c.passed]), [['Survey', true], ['Walk', true], ['Run', true]]);
});
