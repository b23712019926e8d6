// The playback benchmark (docs/PERFORMANCE.md, "three.js playback"): the Fox as one
// VatMesh of N units against N SkinnedMesh clones with their own AnimationMixer, frame
// time (update + render + a 1-pixel readPixels that waits for the frame) in headless
// Chromium at each N. Software GL (SwiftShader): the absolute times are a CPU's, the
// VAT/skinned ratio is the figure. Prints a markdown table; raw numbers to
// target/bench/three.json.
//   node tests/browser/bench.mjs [FRAMES] [N,N,…]     (scripts/bench-three.sh)
import fs from 'node:fs';
import path from 'node:path';
import { bakeFixture, BIN, openHarness, REPO } from './lib/compare.mjs';

const FRAMES = Number(process.argv[2] ?? 15);
const COUNTS = (process.argv[3] ?? '100,1000,10000').split(',').map(Number);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const { browser, server, bakeRoot } = await openHarness(BIN, REPO, { modules: ['bench'] });
try {
  const urls = bakeFixture(BIN, bakeRoot, REPO, { name: 'Fox', model: 'Fox/Fox.glb' });
  const { page } = browser;
  const renderer = await page.evaluate(() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    const debug = gl.getExtension('WEBGL_debug_renderer_info');
    return debug ? gl.getParameter(debug.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
  });
  const rows = [];
  for (const count of COUNTS) {
    const row = { count };
    // Fewer frames where one takes seconds; never fewer than 3.
    const frames = Math.max(3, Math.round(FRAMES * Math.min(1, 1000 / count)));
    const kinds = ['vat', 'vat-nearest', 'skinned'];
    const setupMs = {};
    for (const kind of kinds) {
      ({ setupMs: setupMs[kind] } = await page.evaluate((o) => window.bench.setup(o), { kind, count, descriptionUrl: urls.description, sourceUrl: urls.source }));
    }
    const run = await page.evaluate((f) => window.bench.run(f), frames);
    await page.evaluate(() => window.bench.clear());
    for (const kind of kinds) {
      const r = run[kind];
      row[kind] = {
        frames,
        setupMs: setupMs[kind],
        frameMs: median(r.frames.map((f) => f.frame)),
        updateMs: median(r.frames.map((f) => f.update)),
        calls: r.calls,
        triangles: r.triangles,
        all: r.frames,
      };
      console.error(`N=${count} ${kind}: median frame ${row[kind].frameMs.toFixed(1)} ms (update ${row[kind].updateMs.toFixed(2)} ms) over ${frames} frames; ${r.calls} draw calls; setup ${(setupMs[kind] / 1000).toFixed(1)} s`);
    }
    row.ratio = row.skinned.frameMs / row.vat.frameMs;
    rows.push(row);
  }
  fs.mkdirSync(path.join(REPO, 'target', 'bench'), { recursive: true });
  fs.writeFileSync(path.join(REPO, 'target', 'bench', 'three.json'), JSON.stringify({ renderer, frames: FRAMES, rows }, null, 2));
  console.log(`Headless Chromium, WebGL2 on ${renderer}; 640 × 360; median frame time (update + render + readPixels of one pixel), the kinds' frames alternating.\n`);
  console.log('| N | VAT frame (ms) | VAT, nearest row (ms) | VAT draw calls | SkinnedMesh frame (ms) | of it, AnimationMixer updates (ms) | SkinnedMesh draw calls | skinned / VAT |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.count.toLocaleString('en')} | ${r.vat.frameMs.toFixed(1)} | ${r['vat-nearest'].frameMs.toFixed(1)} | ${r.vat.calls} | ${r.skinned.frameMs.toFixed(1)} | ${r.skinned.updateMs.toFixed(1)} | ${r.skinned.calls} | **${r.ratio.toFixed(2)}×** |`);
  }
} finally {
  await browser.close();
  await server.close();
  fs.rmSync(bakeRoot, { recursive: true, force: true });
}
