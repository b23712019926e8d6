// --tolerance and --bits: positions snapped to a coarser grid of 16-bit steps. The whole
// fixture suite runs on each bake (three.js on every row, within half a grid cell per axis
// plus float noise), with the grid checks of lib/suite.mjs: every stored value on the grid,
// positions.precision half a cell, positions.max_error what three.js measures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fixtureSuite } from './lib/suite.mjs';
import { bake, FIXTURES } from './lib/bake.mjs';
import { readDescription } from './lib/vat.mjs';

// The Fox's diagonal is about 200.5 units: 0.02 is 1e-4 of it, the suite's own position tolerance.
fixtureSuite({ model: 'Fox/Fox.glb', args: ['--tolerance', '0.02', '--name', 'Fox-tolerance'] });
fixtureSuite({ model: 'CesiumMan/glTF-Binary/CesiumMan.glb', args: ['--bits', '14', '--name', 'CesiumMan-bits14'] });

test('--tolerance: a smaller texture, the grid and the error recorded', () => {
  const model = path.join(FIXTURES, 'CesiumMan/glTF-Binary/CesiumMan.glb');
  const sizeOf = (args) => {
    const { desc, ktx2Path } = readDescription(bake(model, args).description);
    return { desc, bytes: fs.statSync(ktx2Path).size };
  };
  const full = sizeOf(['--name', 'CesiumMan-full']);
  const tol = sizeOf(['--tolerance', '0.001', '--name', 'CesiumMan-tol']);
  assert.equal(full.desc.positions.grid, undefined);
  assert.equal(tol.desc.settings.tolerance, 0.001);
  assert.ok(tol.desc.positions.grid.every((c) => c >= 2 && (c & (c - 1)) === 0), `grid ${tol.desc.positions.grid}`);
  assert.ok(tol.desc.positions.precision <= 0.001 && tol.desc.positions.max_error <= tol.desc.positions.precision);
  // docs/PERFORMANCE.md: about 0.6 of the full-precision bytes on CesiumMan at 1 mm.
  assert.ok(tol.bytes < 0.8 * full.bytes, `${tol.bytes} bytes against ${full.bytes}`);
});
