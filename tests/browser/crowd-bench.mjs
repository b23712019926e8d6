// The crowd benchmark (docs/PERFORMANCE.md, "A crowd with levels of detail"): N units of
// a bake with `--lods` over a field under an RTS camera, LODs off (one VatMesh, every unit
// at level 0) against LODs on (a VatCrowd, each unit at its level for a 1280 × 720
// canvas at 1 px), and the same crowd with the impostor (`vatbake impostor`, IMPOSTOR_ARGS,
// default none) as its last level, in one run, their frames alternating. Software GL (SwiftShader): the
// times are a CPU's, the off/on ratio is the figure; vertices and triangles per frame
// are exact. Raw numbers to target/bench/crowd.json.
//   node tests/browser/crowd-bench.mjs [FRAMES] [N] [FIXTURE] [LODS]   (scripts/bench-crowd.sh)
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { bakeFixture, BIN, openHarness, REPO } from './lib/compare.mjs';

const FRAMES = Number(process.argv[2] ?? 9);
const COUNT = Number(process.argv[3] ?? 10000);
const MODEL = process.argv[4] ?? 'Fox/Fox.glb';
const LODS = process.argv[5] ?? '0.5,0.25';
const SPACING = 1.5; // units apart, in bounds diagonals' largest side

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const { browser, server, bakeRoot } = await openHarness(BIN, REPO, { modules: ['crowd'] });
try {
  const name = path.basename(MODEL).replace(/\.[^.]+$/, '');
  const urls = bakeFixture(BIN, bakeRoot, REPO, { name, model: MODEL, args: ['--lods', LODS] });
  const { page } = browser;
  const renderer = await page.evaluate(() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    const debug = gl.getExtension('WEBGL_debug_renderer_info');
    return debug ? gl.getParameter(debug.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
  });
  const impostorArgs = (process.env.IMPOSTOR_ARGS ?? '').split(' ').filter(Boolean);
  const made = spawnSync(BIN, ['impostor', path.join(urls.dir, `${urls.stem}.vat.json`), ...impostorArgs, '--json'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`vatbake impostor failed: ${made.stderr}`);
  const impostor = JSON.parse(made.stdout);
  const kinds = ['lods-off', 'lods-on', 'impostor'];
  const setupMs = {};
  for (const kind of kinds) {
    ({ setupMs: setupMs[kind] } = await page.evaluate((o) => window.crowd.setup(o), { kind, count: COUNT, descriptionUrl: urls.description, impostorUrl: `${urls.base}${urls.stem}.impostor.json`, spacing: SPACING }));
  }
  const run = await page.evaluate((f) => window.crowd.run(f), FRAMES);
  await page.evaluate(() => window.crowd.clear());
  const rows = {};
  for (const kind of kinds) {
    const r = run[kind];
    rows[kind] = { ...r, setupMs: setupMs[kind], frameMs: median(r.frames.map((f) => f.frame)), updateMs: median(r.frames.map((f) => f.update)) };
    console.error(`${kind}: median frame ${rows[kind].frameMs.toFixed(1)} ms (update ${rows[kind].updateMs.toFixed(2)} ms) over ${FRAMES} frames; ${r.calls} draw calls; levels ${r.levelCounts.join('/')}`);
  }
  const lods = urls.json.lods;
  fs.mkdirSync(path.join(REPO, 'target', 'bench'), { recursive: true });
  fs.writeFileSync(path.join(REPO, 'target', 'bench', 'crowd.json'), JSON.stringify({ renderer, frames: FRAMES, count: COUNT, model: MODEL, lods: LODS, impostor, rows }, null, 2));
  const mib = (b) => (b / 2 ** 20).toFixed(2);
  console.log(`Headless Chromium, WebGL2 on ${renderer}; 1280 × 720; ${COUNT.toLocaleString('en')} units of ${MODEL} (\`--lods ${LODS}\`: ${[urls.json.points, ...lods.map((l) => l.points)].join(' / ')} points, ${lods.map((l) => `level ${lods.indexOf(l) + 1} at ${(100 * l.max_error_fraction).toFixed(2)} %`).join(', ')}); impostor \`vatbake impostor ${impostorArgs.join(' ')}\`: ${impostor.views} views × ${impostor.frames} frames, atlases ${impostor.size.join(' × ')}; median of ${FRAMES} frames (update + render + readPixels of one pixel), the three alternating.\n`);
  console.log('| | frame (ms) | of it, update (ms) | draw calls | units per level | vertices per frame | triangles per frame | texture (MiB) | buffers (MiB) |');
  console.log('|---|---:|---:|---:|---|---:|---:|---:|---:|');
  for (const kind of kinds) {
    const r = rows[kind];
    const label = { 'lods-off': 'LODs off (VatMesh)', 'lods-on': 'LODs on (VatCrowd)', impostor: 'LODs + impostor (VatCrowd)' }[kind];
    console.log(`| ${label} | ${r.frameMs.toFixed(1)} | ${r.updateMs.toFixed(2)} | ${r.calls} | ${r.levelCounts.join(' / ')} | ${r.vertices.toLocaleString('en')} | ${r.triangles.toLocaleString('en')} | ${mib(r.textureBytes)} | ${mib(r.bufferBytes)} |`);
  }
  const off = rows['lods-off'];
  const on = rows['lods-on'];
  console.log(`\noff / on: frame ${(off.frameMs / on.frameMs).toFixed(2)}×, vertices ${(off.vertices / on.vertices).toFixed(2)}×, triangles ${(off.triangles / on.triangles).toFixed(2)}×`);
  const imp = rows.impostor;
  console.log(`off / impostor: frame ${(off.frameMs / imp.frameMs).toFixed(2)}×, vertices ${(off.vertices / imp.vertices).toFixed(2)}×, triangles ${(off.triangles / imp.triangles).toFixed(2)}×; on / impostor: frame ${(on.frameMs / imp.frameMs).toFixed(2)}×`);
} finally {
  await browser.close();
  await server.close();
  fs.rmSync(bakeRoot, { recursive: true, force: true });
}
