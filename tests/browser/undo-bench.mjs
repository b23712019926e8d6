// The cost of undoing a bake's delta in the browser (docs/PERFORMANCE.md, "Byte layouts,
// measured"): runtimes/three/src/delta.js's undoDelta on a bake's stored texels, in
// headless Chromium, median of RUNS runs (each on a fresh copy; the copy not timed), in
// milliseconds and milliseconds per MB of texels (10^6 bytes). The texels are decoded
// here with fzstd (the level's Zstandard frame), as KTX2Loader would hand them on.
//   node tests/browser/undo-bench.mjs DESCRIPTION.vat.json... [--runs 15]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decompress } from 'fzstd';
import { launch } from './lib/browser.mjs';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 15;
const here = path.dirname(fileURLToPath(import.meta.url));
const source = fs.readFileSync(path.join(here, '../../runtimes/three/src/delta.js'), 'utf8').replace(/^export /m, '');

const { page, close } = await launch();
try {
  console.log('| bake | layout | MB of texels | ms (median) | ms per MB |');
  console.log('|---|---|---:|---:|---:|');
  for (const descPath of args) {
    const desc = JSON.parse(fs.readFileSync(descPath, 'utf8'));
    const file = fs.readFileSync(path.join(path.dirname(descPath), desc.texture.file));
    const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    const offset = Number(view.getBigUint64(80, true));
    const length = Number(view.getBigUint64(88, true));
    const level = decompress(file.subarray(offset, offset + length));
    const logical = desc.texture.width * desc.texture.height * 8;
    const bytes = Buffer.from(level.subarray(0, logical)).toString('base64');
    const result = await page.evaluate(({ source, bytes, desc, runs }) => {
      const undoDelta = new Function(`${source}; return undoDelta;`)();
      const raw = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0));
      const stored = new Uint16Array(raw.buffer);
      const times = [];
      let check = 0;
      for (let i = 0; i < runs; i++) {
        const texels = stored.slice();
        const t0 = performance.now();
        undoDelta(texels, desc);
        times.push(performance.now() - t0);
        check ^= texels[texels.length - 1];
      }
      times.sort((a, b) => a - b);
      return { ms: times[times.length >> 1], check };
    }, { source, bytes, desc, runs: RUNS });
    const mb = logical / 1e6;
    const layout = desc.texture.delta ? (desc.texture.delta.layout ?? 'interleaved') : 'none';
    console.log(`| ${path.basename(descPath)} | ${layout} | ${mb.toFixed(2)} | ${result.ms.toFixed(2)} | ${(result.ms / mb).toFixed(2)} |`);
  }
} finally {
  await close();
}
