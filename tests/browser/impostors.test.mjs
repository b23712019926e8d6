// Animated impostors (`vatbake impostor`) in headless Chromium through the runtime
// package: on every checked time of every clip of four fixtures, the impostor
// (ImpostorMesh, as VatCrowd's last level draws it) against the VAT mesh (VatMesh) at
// the impostor's switch distance (60° camera, 1080-pixel screen: the unit's bounds
// diagonal is `cell` pixels), from 8 camera azimuths: at the baked ones and halfway
// between them, where the bar holds: silhouette IoU ≥ 0.9 on every comparison
// (each clip's frames chosen by its motion, `--fps auto`). The colour difference (mean
// CIE76 ΔE over the pixels both cover, unlit base colour) is reported. For measurements:
// IMPOSTOR_ARGS (default "--views 32 --elevations 30": one ring, a strategy camera's),
// IMPOSTOR_CAMERA_ELEVATIONS (default "30", a strategy camera's), IMPOSTOR_BLEND (default 1),
// IMPOSTOR_OFFSET (default 0.5), IMPOSTOR_PARALLAX (default 3 steps; 0: none),
// IMPOSTOR_ALPHA (the alpha test; default the runtime's IMPOSTOR_ALPHA_TEST),
// IMPOSTOR_LEAN=1 (the first and ⅔ checked rows only), IMPOSTOR_SWITCH_PX (the diagonal
// on screen, default the cell), IMPOSTOR_FIXTURES (default all four).
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { artifactsDir, BIN, browserSession, checkedRows, decodeMask, fixture, REPO, SIZE, writeComparison } from './lib/compare.mjs';

const ARTIFACTS = artifactsDir('impostors');
const results = {};
const session = browserSession({ BIN, REPO, artifacts: ARTIFACTS, size: SIZE, results, modules: ['harness', 'impostors'] });
const page = session.page;
const MIN_IOU = 0.9;
const ARGS = (process.env.IMPOSTOR_ARGS ?? '--views 32 --elevations 30').split(' ').filter(Boolean);
const CAMERA_ELEVATIONS = (process.env.IMPOSTOR_CAMERA_ELEVATIONS ?? '30').split(',').map(Number);
const BLEND = process.env.IMPOSTOR_BLEND !== '0';
const PARALLAX = Number(process.env.IMPOSTOR_PARALLAX ?? 3);
const ALPHA = process.env.IMPOSTOR_ALPHA ? Number(process.env.IMPOSTOR_ALPHA) : null;
// Where between two baked azimuths the camera is (0.5: halfway, the farthest from both).
const OFFSET = Number(process.env.IMPOSTOR_OFFSET ?? 0.5);
const ONLY = process.env.IMPOSTOR_FIXTURES?.split(',');

const CASES = [
  fixture('Fox'),
  fixture('CesiumMan'),
  fixture('Kenney-MiniCharacters', { args: ['--clips', 'walk,sprint,die,attack-kick-right'] }),
  fixture('Kenney-PlatformerCharacter'),
];

for (const c of CASES.filter((f) => !ONLY || ONLY.includes(f.name))) {
  describe(`${c.name}: vatbake impostor ${ARGS.join(' ')}`, () => {
    let d;
    let sidecar;
    let gpuBytes;
    before(async () => {
      const baked = await session.bake(c);
      d = baked.description;
      const description = path.join(baked.urls.dir, `${baked.urls.stem}.vat.json`);
      const run = spawnSync(BIN, ['impostor', description, ...ARGS, '--json'], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`vatbake impostor failed: ${run.stderr}`);
      ({ sidecar, gpuBytes } = await page().evaluate(([url, blend, parallax, alphaTest]) => window.impostors.load(url, { blendViews: blend, parallax, alphaTest }), [`${baked.urls.base}${baked.urls.stem}.impostor.json`, BLEND, PARALLAX, ALPHA]));
    });
    // Checked times of every clip from 8 camera azimuths, `offset` of the way from
    // one baked azimuth to the next, at each camera elevation.
    async function measure(label, offset, elevations) {
      const n = sidecar.views.azimuths;
      const azimuths = Array.from({ length: 8 }, (_, k) => (360 / n) * (k * (n / 8) + offset));
      // Where the bounds diagonal is `cell` pixels of a 1080-pixel screen under a 60° camera
      // (IMPOSTOR_SWITCH_PX: that many pixels instead).
      const diagonal = 2 * Math.hypot(...d.positions.half_extent);
      const distance = (diagonal * 1080) / (2 * Math.tan(Math.PI / 6) * Number(process.env.IMPOSTOR_SWITCH_PX ?? sidecar.cell));
      const rows = [];
      for (const clip of d.clips) {
        // Every checked row (start, ⅓, ⅔, end: checkedRows); IMPOSTOR_LEAN=1: the first and ⅔.
        const checked = checkedRows(clip);
        for (const row of process.env.IMPOSTOR_LEAN ? [checked[0], checked[Math.min(2, checked.length - 1)]] : checked) {
          const time = row / clip.rate;
          for (const elevation of elevations) {
            for (const azimuth of azimuths) {
              const r = await page().evaluate((o) => window.impostors.compare(o), { clip: clip.name, time, azimuth, elevation, distance });
              rows.push({ clip: clip.name, time, azimuth, elevation, iou: r.iou, pixels: r.union, vatOnly: r.vatOnly, deltaE: r.deltaE, channel: r.channel });
              if (r.iou < MIN_IOU) writeComparison(SIZE, path.join(ARTIFACTS, c.name, `${label}-${clip.name}-${time.toFixed(3)}-${azimuth}-${elevation}.png`), decodeMask(r.impMask), decodeMask(r.vatMask));
            }
          }
        }
      }
      results[`${c.name} ${label}`] = { args: ARGS, clips: sidecar.clips, blend: BLEND, offset, gpuBytes, cell: sidecar.cell, atlas: [sidecar.width, sidecar.height], distance, rows };
      const mean = (f, list = rows) => list.reduce((s, r) => s + f(r), 0) / list.length;
      const worst = rows.reduce((a, b) => (b.iou < a.iou ? b : a));
      const byElevation = elevations.map((e) => {
        const at = rows.filter((r) => r.elevation === e);
        return `${e}°: worst ${Math.min(...at.map((r) => r.iou)).toFixed(3)} mean ${mean((r) => r.iou, at).toFixed(3)}`;
      }).join('; ');
      const under = rows.filter((r) => r.iou < MIN_IOU).length;
      const summary = `${label}: ${rows.length} comparisons (${d.clips.length} clips), atlas ${sidecar.width}×${sidecar.height} = ${(gpuBytes / 2 ** 20).toFixed(2)} MiB on the GPU, switch distance ${distance.toFixed(1)}, ${Math.min(...rows.map((r) => r.pixels))}–${Math.max(...rows.map((r) => r.pixels))} px covered; IoU by camera elevation ${byElevation}; worst ${worst.iou.toFixed(4)} (${worst.clip} t ${worst.time.toFixed(3)} az ${worst.azimuth} el ${worst.elevation}); ${under} under ${MIN_IOU}; mean ΔE ${mean((r) => r.deltaE).toFixed(2)}, mean |Δ| per channel ${[0, 1, 2].map((k) => mean((r) => r.channel[k]).toFixed(1)).join('/')}`;
      console.error(`# ${c.name} ${summary}`);
      return { rows, worst, mean: mean((r) => r.iou), summary };
    }
    // The registration of cells, views and frames: from the baked directions themselves
    // (the first ring), the impostor is the VAT mesh up to its pixels and its frame
    // blend. A cell from the wrong view, a mirrored one or the wrong frame falls far
    // under this (measured: a view 22.5° off gives 0.50 to 0.77 on these fixtures; here
    // mean 0.953–0.974, worst 0.925–0.949).
    test('from the baked directions: silhouette IoU mean ≥ 0.94, worst ≥ 0.9', async (t) => {
      const m = await measure('baked', 0, [sidecar.views.elevations[0]]);
      t.diagnostic(m.summary);
      assert.ok(m.worst.iou >= 0.9 && m.mean >= 0.94, m.summary);
    });
    // Halfway between the baked azimuths, the runtime reprojects each of the two nearest
    // views through the stored depth (parallax correction) before blending them: there
    // the mean IoU must stay ≥ 0.93 (measured 0.943–0.975; without the correction, at 16
    // views and 10 fps, the Fox's was 0.72).
    let between = null;
    test('halfway between the baked azimuths, checked times of every clip: silhouette IoU mean ≥ 0.93', async (t) => {
      between = await measure('between', OFFSET, CAMERA_ELEVATIONS);
      t.diagnostic(between.summary);
      assert.ok(between.mean >= 0.93 && between.worst.iou >= 0.5, between.summary);
    });
    // The bar: IoU ≥ 0.9 on every comparison halfway between the baked azimuths
    // (docs/IMPOSTORS.md, "Measured": worst 0.901 to 0.955 over the four fixtures).
    test('halfway between the baked azimuths: silhouette IoU ≥ 0.9 on every comparison', () => {
      assert.ok(between, 'measured by the test before');
      for (const r of between.rows) assert.ok(r.pixels > 0 && r.iou >= MIN_IOU, `${r.clip} t ${r.time.toFixed(3)} azimuth ${r.azimuth}° elevation ${r.elevation}°: IoU ${r.iou.toFixed(4)} (${r.pixels} px) under ${MIN_IOU}`);
    });
  });
}
