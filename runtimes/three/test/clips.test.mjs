// The clock arithmetic (src/clips.js), which follows the shader's rules: numbers worked by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clipFrame, clipRows, clipTable, findClip } from '../src/clips.js';

const walk = { rows: 22, rate: 29.647058, loop: true }; // the Fox's Walk: 21 intervals over 0.7083 s
const once = { rows: 11, rate: 10, loop: false };

test('a looping clip wraps over rows − 1 intervals; its end is its start', () => {
  assert.equal(clipFrame(walk, 0), 0);
  assert.ok(Math.abs(clipFrame(walk, 21 / walk.rate)) < 1e-9, 'one period later: row 0 again');
  assert.ok(Math.abs(clipFrame(walk, 22.5 / walk.rate) - 1.5) < 1e-9);
  assert.ok(Math.abs(clipFrame(walk, -0.5 / walk.rate) - 20.5) < 1e-9, 'before the start: wraps backwards');
});

test('a clip that does not loop holds its first and last rows', () => {
  assert.equal(clipFrame(once, -3), 0);
  assert.equal(clipFrame(once, 0.25), 2.5);
  assert.equal(clipFrame(once, 5), 10);
  assert.equal(clipFrame({ rows: 1, rate: 30, loop: true }, 7), 0, 'a one-row clip is row 0');
});

test('interpolation takes the two rows around the time; nearest takes the closer one', () => {
  assert.deepEqual(clipRows(once, 2.25), { r0: 2, r1: 3, f: 0.25 });
  assert.deepEqual(clipRows(once, 10), { r0: 10, r1: 10, f: 0 });
  assert.deepEqual(clipRows(once, 2.25, false), { r0: 2, r1: 2, f: 0 });
  assert.deepEqual(clipRows(once, 2.75, false), { r0: 3, r1: 3, f: 0 });
  assert.deepEqual(clipRows(once, 9.9, false), { r0: 10, r1: 10, f: 0 });
});

test('the clip table keeps texture order; an unknown name lists the clips there are', () => {
  const clips = clipTable({
    clips: [
      { name: 'Idle', row: 0, rows: 5, rate: 30, duration: 4 / 30, loop: true, slot: 'idle' },
      { name: 'Die', row: 5, rows: 9, rate: 30, duration: 8 / 30, loop: false, loop_row: false },
    ],
  });
  assert.deepEqual(clips.map((c) => [c.index, c.name, c.row, c.rows, c.loop, c.slot]), [[0, 'Idle', 0, 5, true, 'idle'], [1, 'Die', 5, 9, false, null]]);
  assert.equal(findClip(clips, 'Die').row, 5);
  assert.equal(findClip(clips, 1).name, 'Die');
  assert.throws(() => findClip(clips, 'Run'), { message: 'vatbake: no clip "Run" (have: Idle, Die)' });
});
