// Decimated bakes (`--points N`): the rest mesh is the decimated model, and it must
// still pass the Khronos glTF validator. fixtureSuite() cannot take these bakes (it
// bakes with --points all and compares every source point with three.js), so this file
// bakes on its own and checks what does not depend on the source's point count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import validator from 'gltf-validator';
import { FIXTURES, vatbakeBin } from './lib/bake.mjs';
import { readGlb, readAccessor } from './lib/glb.mjs';
import { restColumns } from './lib/vat.mjs';

const CASES = [
  // The Fox's 1,728 points are 576 separate triangles: merging the repeated corners costs nothing.
  { model: 'Fox/Fox.glb', budget: 600, sourcePoints: 1728 },
  // CesiumMan at 400 points: real clustering, with a measured error.
  { model: 'CesiumMan/glTF-Binary/CesiumMan.glb', budget: 400, sourcePoints: 3273, args: ['--max-frames', '5'] },
];

for (const { model, budget, sourcePoints, args = [] } of CASES) {
  test(`${model} --points ${budget}: the rest mesh validates and holds the decimated points`, async (t) => {
    const bin = vatbakeBin();
    assert.ok(fs.existsSync(bin), `vatbake binary not found at ${bin}: build it first (cargo build -p vatbake) or set VATBAKE_BIN`);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-js-decimated-'));
    t.after(() => fs.rmSync(out, { recursive: true, force: true }));
    const run = spawnSync(bin, ['bake', path.join(FIXTURES, model), '-o', out, '--points', String(budget), '-q', ...args], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const stem = path.basename(model).replace(/\.[^.]+$/, '');
    const desc = JSON.parse(fs.readFileSync(path.join(out, `${stem}.vat.json`), 'utf8'));
    assert.ok(desc.decimation, 'the description records the decimation');
    assert.equal(desc.decimation.source_points, sourcePoints);
    assert.equal(desc.decimation.points, desc.points);
    assert.ok(desc.points <= budget && desc.points < sourcePoints, `${desc.points} points for a budget of ${budget}`);
    assert.equal(desc.mesh.points, desc.points, 'mesh.points');

    const restPath = path.join(out, desc.mesh.file);
    const bytes = new Uint8Array(fs.readFileSync(restPath));
    const report = await validator.validateBytes(bytes, { uri: desc.mesh.file, maxIssues: 0, writeTimestamp: false });
    const { numErrors, numWarnings, messages } = report.issues;
    t.diagnostic(`${model} --points ${budget}: ${desc.points} points; gltf-validator ${numErrors} errors, ${numWarnings} warnings`);
    const errors = messages.filter((m) => m.severity === 0).slice(0, 10).map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`);
    assert.equal(numErrors, 0, `validator errors:\n${errors.join('\n')}`);

    // Every primitive draws from the one vertex set: the baked points, then the two
    // bounds corners (docs/FORMAT.md); TEXCOORD_1.u addresses each point's column.
    const { json, bin: buffer } = readGlb(bytes);
    const width = desc.texture.width;
    for (const [m, mesh] of json.meshes.entries()) {
      for (const [p, prim] of mesh.primitives.entries()) {
        assert.equal(json.accessors[prim.attributes.POSITION].count, desc.points + 2, `mesh ${m} primitive ${p}: POSITION count`);
        const uv1 = readAccessor(json, [buffer], prim.attributes.TEXCOORD_1);
        // Each point a column of its own (the description's column order decides which).
        const columns = restColumns(desc, uv1);
        assert.equal(new Set(columns).size, desc.points, 'every point has a column of its own');
        for (let i = 0; i < desc.points; i++) {
          assert.ok(columns[i] < desc.points, `point ${i}: column ${columns[i]} past the points`);
          assert.ok(Math.abs(uv1[i][0] - ((columns[i] % width) + 0.5) / width) <= 1e-6, `point ${i}: u = ${uv1[i][0]}`);
        }
        if (prim.indices !== undefined) {
          for (const index of readAccessor(json, [buffer], prim.indices)) {
            const v = Array.isArray(index) ? index[0] : index;
            assert.ok(v < desc.points, `mesh ${m} primitive ${p}: a triangle uses vertex ${v}, past the baked points`);
          }
        }
      }
    }
  });
}
