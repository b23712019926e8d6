// Godot 3 renders the `--target godot` bake: Debian's godot3 (3.2.3, the X11 build) under
// Xvfb with Mesa's llvmpipe (GLES3, no GPU). Each fixture is baked with `--target godot`;
// Godot's own editor imports `<name>.rest.glb` (TEXCOORD_1 → UV2), a SceneTree script
// (godot/render.gd) loads `<name>-godot.exr` with Image.load, plays it through the
// Godot 3.x shader of docs/targets/godot.md (taken from the page, verbatim, plus an
// unshaded white fragment) and reads the viewport back as white-on-black masks. three.js
// draws the SOURCE (SkinnedMesh + AnimationMixer) with the same camera in headless
// Chromium (page/harness.js); the masks are compared by IoU. A negative control draws
// rows a third of the clip away and must fall below the bar. Comparison images go to
// tests/browser/artifacts/godot/.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bakeFixture, decodeMask, iou, openHarness, writeComparison } from './lib/compare.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..');
const ARTIFACTS = path.join(HERE, 'artifacts', 'godot');
const BIN = process.env.VATBAKE_BIN || path.join(REPO, 'target', 'debug', 'vatbake');
const GODOT = process.env.GODOT3_BIN || '/usr/bin/godot3';
const XVFB = process.env.XVFB_BIN || '/usr/bin/Xvfb';
const SIZE = 256;
// The bar of playback.test.mjs and players.test.mjs: at a stored row the VAT shows what
// three.js shows, up to edge pixels rasterized differently. Godot 3 reads the EXR as half
// floats (up to 20.9 16-bit steps off), still far below a pixel at this size.
const MIN_IOU = 0.98;

const FIXTURES = [
  { name: 'Fox', model: 'Fox/Fox.glb', clips: ['Survey', 'Walk', 'Run'] },
  { name: 'CesiumMan', model: 'CesiumMan/glTF-Binary/CesiumMan.glb', clips: ['animation_0'] },
  { name: 'Kenney-MiniCharacters', model: 'Kenney-MiniCharacters/character-female-a.glb', clips: ['walk', 'die'] },
];

/** Stored rows of a clip compared: the first, the thirds and the last. */
function rowsOf(clip) {
  const last = clip.rows - 1;
  return [...new Set([0, Math.round(last / 3), Math.round((2 * last) / 3), last])];
}

/** The Godot 3.x shader of docs/targets/godot.md, as printed there. */
function docsShader() {
  const page = fs.readFileSync(path.join(REPO, 'docs', 'targets', 'godot.md'), 'utf8');
  const section = page.split('\n## Playback in Godot 3.x')[1];
  assert.ok(section, 'docs/targets/godot.md has a "## Playback in Godot 3.x" section');
  const block = section.split('\n## ')[0].match(/```glsl\n([\s\S]*?)```/);
  assert.ok(block, 'that section holds a ```glsl block');
  return block[1];
}

/** Xvfb on a free display (-displayfd); resolves to { display, close() }. */
function startXvfb() {
  const xvfb = spawn(XVFB, ['-displayfd', '3', '-screen', '0', '640x480x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  xvfb.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    let out = '';
    xvfb.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ display: `:${out.trim()}`, close: () => xvfb.kill() });
    });
    xvfb.on('exit', (code) => reject(new Error(`Xvfb exited (${code}) before it gave a display:\n${stderr}`)));
  });
}

/** The editor imports every .glb of the project (its .md5 with a dest_md5 line is written last); then it is stopped. */
async function importAssets(project, env, glbs) {
  const editor = spawn(GODOT, ['--audio-driver', 'Dummy', '--editor', '--path', project], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  editor.stdout.on('data', (d) => (log += d));
  editor.stderr.on('data', (d) => (log += d));
  const importDir = path.join(project, '.import');
  const imported = (glb) => {
    if (!fs.existsSync(importDir)) return false;
    const md5 = fs.readdirSync(importDir).find((f) => f.startsWith(`${path.basename(glb)}-`) && f.endsWith('.md5'));
    return md5 !== undefined && fs.readFileSync(path.join(importDir, md5), 'utf8').includes('dest_md5=');
  };
  const started = Date.now();
  try {
    while (!glbs.every(imported)) {
      if (editor.exitCode !== null) throw new Error(`the Godot editor exited (${editor.exitCode}) before importing:\n${log}`);
      if (Date.now() - started > 120_000) throw new Error(`the Godot editor did not import ${glbs.join(', ')} in 120 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    editor.kill();
    await new Promise((r) => (editor.exitCode !== null || editor.signalCode !== null ? r() : editor.once('exit', r)));
  }
  return (Date.now() - started) / 1000;
}

const results = { fixtures: {} };
let harness;
let project;
let xvfb;
let godotLog = '';
const fixtures = new Map(); // name → { description, frames: [{ clip, row, out, reference, control }] }

before(async () => {
  for (const [bin, what] of [[GODOT, 'godot3 (GODOT3_BIN)'], [XVFB, 'Xvfb (XVFB_BIN)']]) {
    if (!fs.existsSync(bin)) throw new Error(`${what} not found at ${bin}: install Debian's packages with \`apt-get install -y godot3 xvfb libgl1-mesa-dri\``);
  }
  fs.rmSync(ARTIFACTS, { recursive: true, force: true });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  harness = await openHarness(BIN, REPO);
  const page = harness.browser.page;
  await page.evaluate((s) => window.harness.init(s), SIZE);

  project = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-godot-'));
  fs.writeFileSync(path.join(project, 'project.godot'), 'config_version=4\n\n[application]\n\nconfig/name="vatbake-godot-check"\n');
  fs.copyFileSync(path.join(HERE, 'godot', 'render.gd'), path.join(project, 'render.gd'));
  fs.writeFileSync(path.join(project, 'vat3.shader'), docsShader().replace('shader_type spatial;\n', 'shader_type spatial;\nrender_mode unshaded, cull_disabled;\n') + '\nvoid fragment() {\n    ALBEDO = vec3(1.0);\n}\n');
  const job = { size: SIZE, units: [] };
  const glbs = [];
  for (const fixture of FIXTURES) {
    const urls = bakeFixture(BIN, harness.bakeRoot, REPO, { ...fixture, args: ['--target', 'godot'] });
    const dir = path.join(harness.bakeRoot, fixture.name);
    const description = JSON.parse(fs.readFileSync(path.join(dir, path.basename(urls.description)), 'utf8'));
    const target = description.target;
    assert.equal(target?.name, 'godot', `${fixture.name}: the description records target "godot"`);
    await page.evaluate((o) => window.harness.load(o), { descriptionUrl: urls.description, sourceUrl: urls.source });
    // The three.js camera (framed from the description's bounds), handed to Godot as
    // position, a point ahead of it, vertical fov and clip planes (Godot's Camera keeps
    // the height: its fov is vertical, as three's).
    const camera = await page.evaluate(() => {
      const c = window.harness.camera();
      const m = c.matrixWorld.elements;
      return { fov: c.fov, aspect: c.aspect, near: c.near, far: c.far, position: [m[12], m[13], m[14]], target: [m[12] - m[8], m[13] - m[9], m[14] - m[10]], up: c.up.toArray() };
    });
    assert.equal(camera.aspect, 1);
    assert.deepEqual(camera.up, [0, 1, 0]);
    // The rest mesh goes into the project for the editor to import; the EXR stays outside
    // (Image.load reads it from its path, no import).
    fs.mkdirSync(path.join(project, fixture.name));
    const glb = path.join(fixture.name, description.mesh.file);
    fs.copyFileSync(path.join(dir, description.mesh.file), path.join(project, glb));
    glbs.push(glb);
    // Import dock: Meshes > Compress off (the rest of the scene importer's defaults).
    fs.writeFileSync(path.join(project, `${glb}.import`), '[remap]\n\nimporter="scene"\n\n[params]\n\nmeshes/compress=false\n');
    const frames = [];
    for (const clipName of fixture.clips) {
      const clip = description.clips.find((c) => c.name === clipName);
      assert.ok(clip, `${fixture.name}: clip "${clipName}" is in the description`);
      const sources = clip.merged_from ?? [clip.source_index];
      for (const k of rowsOf(clip)) {
        const reference = decodeMask(await page.evaluate(([s, t, l]) => window.harness.renderSource(s, t, l), [sources, k / clip.rate, clip.loop]));
        const out = path.join(project, 'out', `${fixture.name}-${clipName}-row${k}`);
        // The control: a third of the clip later (wrapped), what a wrong row would show.
        const wrong = (k + Math.max(1, Math.round(clip.rows / 3))) % clip.rows;
        frames.push({ clip: clipName, k, row: clip.row + k, out, reference });
        frames.push({ clip: clipName, k, row: clip.row + wrong, out: `${out}-control${wrong}`, reference, control: true });
      }
    }
    fixtures.set(fixture.name, { description, frames });
    job.units.push({
      name: fixture.name,
      exr: path.join(dir, target.texture),
      flags: 0,
      mesh: `res://${glb}`,
      center: target.center,
      half_extent: target.half_extent,
      camera,
      frames: frames.map(({ row, out }) => ({ row, out })),
    });
  }
  fs.mkdirSync(path.join(project, 'out'));
  fs.writeFileSync(path.join(project, 'job.json'), JSON.stringify(job));

  xvfb = await startXvfb();
  const env = { ...process.env, DISPLAY: xvfb.display, LANG: 'C.UTF-8' };
  results.importSeconds = await importAssets(project, env, glbs);
  const started = Date.now();
  const run = spawnSync(GODOT, ['--audio-driver', 'Dummy', '--path', project, '-s', 'render.gd'], { env, encoding: 'utf8', timeout: 120_000 });
  results.renderSeconds = (Date.now() - started) / 1000;
  godotLog = `${run.stdout}\n${run.stderr}`;
  fs.writeFileSync(path.join(ARTIFACTS, 'godot.log'), godotLog);
  if (run.error || run.status !== 0 || /SHADER ERROR/.test(godotLog)) {
    throw new Error(`${GODOT} -s render.gd failed (${run.error?.message ?? `exit ${run.status}`}):\n${godotLog}`);
  }
});

after(async () => {
  xvfb?.close();
  await harness?.browser.close();
  await harness?.server.close();
  if (!process.env.VATBAKE_BROWSER_KEEP) {
    if (harness?.bakeRoot) fs.rmSync(harness.bakeRoot, { recursive: true, force: true });
    if (project) fs.rmSync(project, { recursive: true, force: true });
  }
  fs.writeFileSync(path.join(ARTIFACTS, 'results.json'), JSON.stringify(results, null, 2));
});

test('Godot 3 draws on GLES3 (llvmpipe) and loads each EXR as half floats with texture flags 0', (t) => {
  const renderer = godotLog.match(/^renderer: (.*), (\d+) frames$/m);
  assert.ok(renderer, `render.gd printed its renderer:\n${godotLog}`);
  assert.match(godotLog, /^OpenGL ES 3\.0 Renderer: /m);
  t.diagnostic(`Godot ${godotLog.match(/Godot Engine (v\S+)/)?.[1]}, ${renderer[1]}; editor import ${results.importSeconds.toFixed(1)} s, render of ${renderer[2]} frames ${results.renderSeconds.toFixed(1)} s`);
  for (const fixture of FIXTURES) {
    const line = godotLog.match(new RegExp(`^unit ${fixture.name}: image format (\\d+) (\\d+)x(\\d+), flags (\\d+), surfaces (.*)$`, 'm'));
    assert.ok(line, `render.gd described unit ${fixture.name}`);
    const { description } = fixtures.get(fixture.name);
    // Image.FORMAT_RGBAH = 15: Godot 3's EXR loader narrows 32-bit floats to half floats.
    assert.equal(Number(line[1]), 15);
    assert.deepEqual([Number(line[2]), Number(line[3])], [description.texture.width, description.texture.height]);
    assert.equal(Number(line[4]), 0);
    const surfaces = JSON.parse(line[5]);
    // Mesh.ARRAY_FORMAT_TEX_UV2 = 32: the importer kept TEXCOORD_1 as UV2.
    for (const s of surfaces) assert.ok(s.format & 32, `${fixture.name}: an imported surface without UV2 (format ${s.format})`);
    t.diagnostic(`${fixture.name}: ${surfaces.length} surface(s), ${surfaces.map((s) => `${s.vertices} vertices, format ${s.format}`).join('; ')}`);
  }
});

for (const fixture of FIXTURES) {
  describe(`Godot 3 plays ${fixture.name} (--target godot)`, () => {
    for (const clipName of fixture.clips) {
      test(`clip "${clipName}": Godot's silhouettes match three.js's skinned playback (IoU ≥ ${MIN_IOU}); rows a third away do not`, (t) => {
        const { frames } = fixtures.get(fixture.name);
        const measured = [];
        for (const f of frames.filter((x) => x.clip === clipName)) {
          const godot = new Uint8Array(fs.readFileSync(`${f.out}.mask`));
          assert.equal(godot.length, SIZE * SIZE, `${f.out}.mask holds one byte a pixel`);
          const r = iou(godot, f.reference);
          measured.push({ k: f.k, row: f.row, control: !!f.control, iou: r.iou, godotPixels: r.vatPixels, threePixels: r.threePixels });
          const name = `${fixture.name}-${clipName}-row${f.k}${f.control ? '-control' : ''}.png`;
          writeComparison(SIZE, path.join(ARTIFACTS, name), godot, f.reference);
        }
        (results.fixtures[fixture.name] ??= {})[clipName] = measured;
        const main = measured.filter((m) => !m.control);
        const controls = measured.filter((m) => m.control);
        t.diagnostic(`${fixture.name} "${clipName}": ` + main.map((m) => `row ${m.k} IoU ${m.iou.toFixed(4)}`).join(', ') +
          `; controls ${controls.map((m) => m.iou.toFixed(4)).join(', ')}`);
        for (const m of main) {
          assert.ok(m.godotPixels > 0.002 * SIZE * SIZE, `row ${m.k}: Godot drew (almost) nothing: ${m.godotPixels} pixels`);
          assert.ok(m.iou >= MIN_IOU, `row ${m.k}: IoU ${m.iou.toFixed(4)} < ${MIN_IOU}`);
        }
        // Some clips return to their first pose; at least one row a third away must differ.
        assert.ok(Math.min(...controls.map((m) => m.iou)) < MIN_IOU, `rows a third of the clip away still match three.js (IoU ≥ ${MIN_IOU})`);
      });
    }
  });
}
