// Godot 3 renders the `--target godot` bake: Debian's godot3 (3.2.3, the X11 build) under
// Xvfb with Mesa's llvmpipe (GLES3, no GPU). Each fixture is baked with `--target godot`;
// Godot's own editor imports `<name>.rest.glb` (TEXCOORD_1 → UV2), a SceneTree script
// (godot/render.gd) loads `<name>-godot.exr` with Image.load, plays it through the
// Godot 3.x shader of docs/targets/godot.md (taken from the page, verbatim, plus an
// unshaded white fragment) and reads the viewport back as white-on-black masks. three.js
// draws the SOURCE (SkinnedMesh + AnimationMixer) with the same camera in headless
// Chromium (page/harness.js); the masks are compared by IoU. A negative control draws
// rows a third of the clip away and must fall below the bar. The same bakes also go
// through other import choices (VARIANTS) and docs/examples/godot3/vat_exr.gd, and
// Godot's texels are compared with the EXR's over every texel. Comparison images go to
// tests/browser/artifacts/godot/ (see README.md).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EXRLoader } from 'three/examples/jsm/loaders/EXRLoader.js';
import { DataUtils, FloatType } from 'three';
import { BIN, MIN_IOU, REPO, SIZE, artifactsDir, bakeFixture, checkedRows, decodeMask, iou, openHarness, writeComparison } from './lib/compare.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = artifactsDir('godot');
const GODOT = process.env.GODOT3_BIN || '/usr/bin/godot3';
const XVFB = process.env.XVFB_BIN || '/usr/bin/Xvfb';
// MIN_IOU: the bar of playback.test.mjs and players.test.mjs: at a stored row the VAT shows
// what three.js shows, up to edge pixels rasterized differently. Godot 3.2 reads the EXR as
// half floats (up to 32 16-bit steps off), still far below a pixel at this size.
// Godot's version (`godot3 --version`, e.g. "3.2.3.stable.custom_build"): the half-float
// import (FORMAT_RGBAH, ≤ 32 steps) is what 3.2 does; another 3.x is held to the rest.
const GODOT_VERSION = fs.existsSync(GODOT) ? spawnSync(GODOT, ['--version'], { encoding: 'utf8', timeout: 30000 }).stdout?.trim() ?? '' : '';
const GODOT_3_2 = /^3\.2\./.test(GODOT_VERSION);

const FIXTURES = [
  { name: 'Fox', model: 'Fox/Fox.glb', clips: ['Survey', 'Walk', 'Run'] },
  { name: 'CesiumMan', model: 'CesiumMan/glTF-Binary/CesiumMan.glb', clips: ['animation_0'] },
  { name: 'Kenney-MiniCharacters', model: 'Kenney-MiniCharacters/character-female-a.glb', clips: ['walk', 'die'] },
];

// The same bakes through other import choices (measured, see docs/targets/godot.md):
// Godot 3's default mesh compression (UV2 in half floats), the default ImageTexture flags
// (7: mipmaps, repeat, filter), and the EXR through the editor's texture importer with its
// defaults and with the settings docs/targets/godot.md lists.
const VARIANTS = [
  { name: 'Fox-mesh-compressed', fixture: 'Fox', meshCompress: true },
  { name: 'CesiumMan-mesh-compressed', fixture: 'CesiumMan', meshCompress: true },
  { name: 'Fox-flags-7', fixture: 'Fox', flags: 7 },
  // docs/examples/godot3/vat_exr.gd: the EXR read in GDScript, kept as 32-bit floats.
  { name: 'Fox-vat_exr', fixture: 'Fox', loader: true },
  { name: 'Fox-texture-import-defaults', fixture: 'Fox', textureImport: null },
  {
    name: 'Fox-texture-import-data',
    fixture: 'Fox',
    textureImport: { 'compress/mode': 3, 'flags/repeat': 0, 'flags/filter': false, 'flags/mipmaps': false, 'flags/srgb': 0, 'process/fix_alpha_border': false, 'process/HDR_as_SRGB': false, detect_3d: false },
  },
];

/** The UV2 render.gd read back from a unit's imported mesh, and the texture column each addresses. */
function columnsOf(unitName, { width, height }) {
  const uv = new Float32Array(new Uint8Array(fs.readFileSync(path.join(project, 'out', `${unitName}.uv2`))).buffer);
  const columns = [];
  let offCentre = 0; // the largest distance of u·width from a texel centre, in texels
  let rowOffset = 0; // the largest distance of v·height from a whole row (the band's first row)
  for (let i = 0; i < uv.length; i += 2) {
    const x = uv[i] * width;
    columns.push(Math.floor(x));
    offCentre = Math.max(offCentre, Math.abs(x - Math.floor(x) - 0.5));
    rowOffset = Math.max(rowOffset, Math.abs(uv[i + 1] * height - Math.round(uv[i + 1] * height)));
  }
  return { columns, offCentre, rowOffset };
}

/** An octahedral 8 + 8 normal from its 16-bit code (the docs' decode). */
function octahedral(code) {
  let x = ((code >> 8) / 255) * 2 - 1;
  let y = ((code & 255) / 255) * 2 - 1;
  const z = 1 - Math.abs(x) - Math.abs(y);
  if (z < 0) [x, y] = [(1 - Math.abs(y)) * (x >= 0 ? 1 : -1), (1 - Math.abs(x)) * (y >= 0 ? 1 : -1)];
  const l = Math.hypot(x, y, z);
  return [x / l, y / l, z / l];
}

/**
 * What Godot 3 holds of a bake's EXR (render.gd's dump of the Image: half floats from
 * Image.load, 32-bit floats from vat_exr.gd) against the file itself read by three.js's
 * EXRLoader (32-bit floats, t / 65535 exactly): the largest position error in 16-bit
 * steps and in model units, and the normals' error (codes changed, degrees).
 */
function textureLoss(unitName, fixtureName, description) {
  const { width, height } = description.texture;
  const file = fs.readFileSync(path.join(fixtures.get(fixtureName).dir, description.target.texture));
  const exr = new EXRLoader().setDataType(FloatType).parse(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
  const dump = fs.readFileSync(path.join(project, 'out', `${unitName}.texels`));
  const bytes = dump.length / (width * height * 4); // 2: half floats (RGBAH), 4: floats (RGBAF)
  assert.ok(bytes === 2 || bytes === 4, `${unitName}.texels: ${dump.length} bytes for ${width}×${height} texels`);
  const read = (i) => (bytes === 2 ? DataUtils.fromHalfFloat(dump.readUInt16LE(i * 2)) : dump.readFloatLE(i * 4));
  const h = description.target.half_extent;
  let steps = 0;
  let units = 0;
  let degrees = 0;
  let over5 = 0;
  let codes = 0; // texels whose normal code Godot changed
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const g = (y * width + x) * 4; // Godot's image: top row first
      const e = ((height - 1 - y) * width + x) * 4; // EXRLoader: bottom row first
      for (let c = 0; c < 3; c++) {
        const d = Math.abs(read(g + c) - exr.data[e + c]) * 65535;
        steps = Math.max(steps, d);
        units = Math.max(units, (d / 65535) * 2 * h[c]);
      }
      const exactCode = Math.round(exr.data[e + 3] * 65535);
      const gotCode = Math.round(read(g + 3) * 65535);
      if (gotCode !== exactCode) codes++;
      const exact = octahedral(exactCode);
      const got = octahedral(gotCode);
      const deg = (Math.acos(Math.min(1, exact[0] * got[0] + exact[1] * got[1] + exact[2] * got[2])) * 180) / Math.PI;
      degrees = Math.max(degrees, deg);
      if (deg > 5) over5++;
    }
  }
  return { bytes, steps, units, degrees, over5: over5 / (width * height), codes };
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

/** The editor imports the files (.glb, .exr) of the project (its .md5 with a dest_md5 line is written last); then it is stopped. */
async function importAssets(project, env, files) {
  const editor = spawn(GODOT, ['--audio-driver', 'Dummy', '--editor', '--path', project], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  editor.stdout.on('data', (d) => (log += d));
  editor.stderr.on('data', (d) => (log += d));
  const importDir = path.join(project, '.import');
  // Godot 3 names an import "res://.import/<file name>-<md5 of its res:// path>".
  const imported = (file) => {
    const md5 = path.join(importDir, `${path.basename(file)}-${crypto.createHash('md5').update(`res://${file}`).digest('hex')}.md5`);
    return fs.existsSync(md5) && fs.readFileSync(md5, 'utf8').includes('dest_md5=');
  };
  const started = Date.now();
  try {
    while (!files.every(imported)) {
      if (editor.exitCode !== null) throw new Error(`the Godot editor exited (${editor.exitCode}) before importing:\n${log}`);
      if (Date.now() - started > 240_000) throw new Error(`the Godot editor did not import ${files.join(', ')} in 240 s:\n${log}`);
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
const fixtures = new Map(); // name → { description, dir, camera, frames: [{ clip, k, row, reference, control }] }
const units = new Map(); // name → the unit (FIXTURES and VARIANTS) and its frames, each with `out`

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
  fs.copyFileSync(path.join(REPO, 'docs', 'examples', 'godot3', 'vat_exr.gd'), path.join(project, 'vat_exr.gd'));
  fs.writeFileSync(path.join(project, 'godot3_vat.shader'), docsShader().replace('shader_type spatial;\n', 'shader_type spatial;\nrender_mode unshaded, cull_disabled;\n') + '\nvoid fragment() {\n    ALBEDO = vec3(1.0);\n}\n');
  const job = { size: SIZE, units: [] };
  const imports = [];
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
    const frames = [];
    for (const clipName of fixture.clips) {
      const clip = description.clips.find((c) => c.name === clipName);
      assert.ok(clip, `${fixture.name}: clip "${clipName}" is in the description`);
      const sources = clip.merged_from ?? [clip.source_index];
      for (const k of checkedRows(clip)) {
        const reference = decodeMask(await page.evaluate(([s, t, l]) => window.harness.renderSource(s, t, l), [sources, k / clip.rate, clip.loop]));
        // The control: a third of the clip later (wrapped), what a wrong row would show.
        const wrong = (k + Math.max(1, Math.round(clip.rows / 3))) % clip.rows;
        frames.push({ clip: clipName, k, row: clip.row + k, reference });
        frames.push({ clip: clipName, k, row: clip.row + wrong, reference, control: true });
      }
    }
    fixtures.set(fixture.name, { description, dir, camera, frames });
  }
  for (const unit of [...FIXTURES.map((f) => ({ name: f.name, fixture: f.name })), ...VARIANTS]) {
    const { description, dir, camera, frames } = fixtures.get(unit.fixture);
    const target = description.target;
    // The rest mesh goes into the project for the editor to import, with Meshes >
    // Compress off unless the unit says otherwise (the scene importer's other defaults).
    fs.mkdirSync(path.join(project, unit.name));
    const glb = path.join(unit.name, description.mesh.file);
    fs.copyFileSync(path.join(dir, description.mesh.file), path.join(project, glb));
    imports.push(glb);
    if (!unit.meshCompress) fs.writeFileSync(path.join(project, `${glb}.import`), '[remap]\n\nimporter="scene"\n\n[params]\n\nmeshes/compress=false\n');
    // The EXR stays outside the project (Image.load reads it from its path) unless the
    // unit takes it through the editor's texture importer (`textureImport`: its params,
    // or null for the defaults).
    let texture = null;
    if (unit.textureImport !== undefined) {
      texture = path.join(unit.name, target.texture);
      fs.copyFileSync(path.join(dir, target.texture), path.join(project, texture));
      imports.push(texture);
      if (unit.textureImport) {
        const params = Object.entries(unit.textureImport).map(([k, v]) => `${k}=${v}`).join('\n');
        fs.writeFileSync(path.join(project, `${texture}.import`), `[remap]\n\nimporter="texture"\ntype="StreamTexture"\n\n[params]\n\n${params}\n`);
      }
    }
    const own = (unit.name === unit.fixture ? frames : frames.filter((f) => !f.control)).map((f) => ({
      ...f,
      out: path.join(project, 'out', `${unit.name}-${f.clip}-row${f.k}${f.control ? `-control${f.row}` : ''}`),
    }));
    units.set(unit.name, { ...unit, frames: own });
    job.units.push({
      name: unit.name,
      exr: path.join(dir, target.texture),
      texture: texture ? `res://${texture}` : '',
      loader: unit.loader ? 'res://vat_exr.gd' : '',
      flags: unit.flags ?? 0,
      mesh: `res://${glb}`,
      uv2_out: path.join(project, 'out', `${unit.name}.uv2`),
      texels_out: unit.name === unit.fixture || unit.loader ? path.join(project, 'out', `${unit.name}.texels`) : '',
      center: target.center,
      half_extent: target.half_extent,
      camera,
      frames: own.map(({ row, out }) => ({ row, out })),
    });
  }
  fs.mkdirSync(path.join(project, 'out'));
  // vat_exr.gd on bad input: the Fox's EXR cut in half, and a file that is not an EXR.
  const foxExr = fs.readFileSync(path.join(fixtures.get('Fox').dir, fixtures.get('Fox').description.target.texture));
  job.refuse = [path.join(project, 'out', 'cut.exr'), path.join(fixtures.get('Fox').dir, 'Fox.vat.json')];
  fs.writeFileSync(job.refuse[0], foxExr.subarray(0, foxExr.length >> 1));
  fs.writeFileSync(path.join(project, 'job.json'), JSON.stringify(job));

  xvfb = await startXvfb();
  // Godot's editor settings, caches and user:// data go into a folder of the test's, not $HOME.
  const xdg = (name) => {
    const dir = path.join(`${project}-home`, name);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  };
  const env = { ...process.env, DISPLAY: xvfb.display, LANG: 'C.UTF-8', XDG_CONFIG_HOME: xdg('config'), XDG_DATA_HOME: xdg('data'), XDG_CACHE_HOME: xdg('cache') };
  results.importSeconds = await importAssets(project, env, imports);
  const started = Date.now();
  const run = spawnSync(GODOT, ['--audio-driver', 'Dummy', '--path', project, '-s', 'render.gd'], { env, encoding: 'utf8', timeout: 120_000 });
  results.renderSeconds = (Date.now() - started) / 1000;
  godotLog = `${run.stdout}\n${run.stderr}`;
  fs.writeFileSync(path.join(ARTIFACTS, 'godot.log'), godotLog);
  if (run.error || run.status !== 0 || /SHADER ERROR/.test(godotLog) || !/^render\.gd: \d+ frames written$/m.test(godotLog)) {
    throw new Error(`${GODOT} -s render.gd failed (${run.error?.message ?? `exit ${run.status}`}):\n${godotLog}`);
  }
});

after(async () => {
  xvfb?.close();
  await harness?.browser.close();
  await harness?.server.close();
  if (!process.env.VATBAKE_BROWSER_KEEP) {
    if (harness?.bakeRoot) fs.rmSync(harness.bakeRoot, { recursive: true, force: true });
    if (project) for (const dir of [project, `${project}-home`]) fs.rmSync(dir, { recursive: true, force: true });
  }
  fs.mkdirSync(ARTIFACTS, { recursive: true });
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
    // Image.FORMAT_RGBAH = 15: Godot 3.2's EXR loader narrows 32-bit floats to half floats.
    if (GODOT_3_2) assert.equal(Number(line[1]), 15);
    else t.diagnostic(`${fixture.name}: image format ${line[1]} not checked: FORMAT_RGBAH (15) is Godot 3.2's import, this is ${GODOT_VERSION}`);
    assert.deepEqual([Number(line[2]), Number(line[3])], [description.texture.width, description.texture.height]);
    assert.equal(Number(line[4]), 0);
    const surfaces = JSON.parse(line[5]);
    // Mesh.ARRAY_FORMAT_TEX_UV2 = 32: the importer kept TEXCOORD_1 as UV2.
    for (const s of surfaces) assert.ok(s.format & 32, `${fixture.name}: an imported surface without UV2 (format ${s.format})`);
    // Mesh.ARRAY_COMPRESS_TEX_UV2 = 16384: off, as the .import asked (Meshes > Compress off).
    for (const s of surfaces) assert.equal(s.format & 16384, 0, `${fixture.name}: UV2 compressed (format ${s.format})`);
    // Every vertex's UV2 lands on a texel centre of its column (u = (column + 0.5) / width, v = 0: one band).
    const { offCentre, rowOffset } = columnsOf(fixture.name, description.texture);
    assert.ok(offCentre < 0.001 && rowOffset < 0.001, `${fixture.name}: UV2 off the texel centres by up to ${offCentre} texels, v off a row by ${rowOffset} rows`);
    // The half-float narrowing, over every texel: positions within 32 16-bit steps (half
    // floats keep 11 significant bits: 2^-11 of a value in [0.5, 1) is 32 steps), normals
    // reported (the octahedral code's low byte is below a half float's precision).
    const loss = textureLoss(fixture.name, fixture.name, description);
    (results.halfFloats ??= {})[fixture.name] = loss;
    if (GODOT_3_2) assert.ok(loss.steps > 0 && loss.steps <= 32, `${fixture.name}: Godot's texels ${loss.steps} 16-bit steps from the EXR's`);
    else t.diagnostic(`${fixture.name}: the ≤ 32-step half-float bound not checked: it is Godot 3.2's import, this is ${GODOT_VERSION}`);
    t.diagnostic(`${fixture.name}: Godot's half floats vs the EXR: positions up to ${loss.steps.toFixed(1)} 16-bit steps (${loss.units.toPrecision(3)} model units), normals up to ${loss.degrees.toFixed(1)}° (${(100 * loss.over5).toFixed(1)}% of texels over 5°, ${loss.codes} codes changed)`);
    t.diagnostic(`${fixture.name}: ${surfaces.length} surface(s), ${surfaces.map((s) => `${s.vertices} vertices, format ${s.format}`).join('; ')}; UV2 within ${offCentre.toExponential(1)} texels of a column centre`);
  }
});

for (const fixture of FIXTURES) {
  describe(`Godot 3 plays ${fixture.name} (--target godot)`, () => {
    for (const clipName of fixture.clips) {
      test(`clip "${clipName}": Godot's silhouettes match three.js's skinned playback (IoU ≥ ${MIN_IOU}); rows a third away do not`, (t) => {
        const { frames } = units.get(fixture.name);
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

describe('import choices (the same bakes, other settings)', () => {
  for (const variant of VARIANTS) {
    test(`${variant.name}`, (t) => {
      const { frames } = units.get(variant.name);
      const measured = frames.map((f) => {
        const godot = new Uint8Array(fs.readFileSync(`${f.out}.mask`));
        writeComparison(SIZE, path.join(ARTIFACTS, `${variant.name}-${f.clip}-row${f.k}.png`), godot, f.reference);
        return { clip: f.clip, k: f.k, iou: iou(godot, f.reference).iou };
      });
      const values = measured.map((m) => m.iou).sort((a, b) => a - b);
      const { description } = fixtures.get(variant.fixture);
      const own = columnsOf(variant.name, description.texture);
      const base = columnsOf(variant.fixture, description.texture);
      assert.equal(own.columns.length, base.columns.length, 'the same vertices as the fixture\'s own import');
      const wrongColumns = own.columns.filter((c, i) => c !== base.columns[i]).length;
      (results.variants ??= {})[variant.name] = { wrongColumns, offCentre: own.offCentre, rows: measured };
      t.diagnostic(`${variant.name}: IoU min ${values[0].toFixed(4)}, median ${values[Math.floor(values.length / 2)].toFixed(4)} over ${values.length} rows; ` +
        `UV2 up to ${own.offCentre.toFixed(3)} texels off a column centre, ${wrongColumns} of ${own.columns.length} vertices in another column`);
      if (variant.meshCompress) {
        // Godot 3's default (Meshes > Compress on) stores UV2 as half floats: vertices
        // read a neighbouring column, and the silhouettes show it.
        assert.ok(wrongColumns > 0, 'compressed UV2 still addresses every column');
        assert.ok(values[0] < MIN_IOU, `compressed UV2 still matches three.js (IoU ≥ ${MIN_IOU} at every row)`);
      } else {
        // UV2 exact: texel centres, level 0. Filtering, mipmaps and repeat change nothing
        // there, and the importer keeps the EXR's half floats as Image.load does.
        assert.equal(wrongColumns, 0);
        assert.ok(values[0] >= MIN_IOU, `IoU ${values[0].toFixed(4)} < ${MIN_IOU}`);
        if (variant.loader) {
          // vat_exr.gd keeps the EXR's floats: every texel bit for bit, normals exact.
          const loss = textureLoss(variant.name, variant.fixture, description);
          results.variants[variant.name].texels = loss;
          const ms = godotLog.match(new RegExp(`^unit ${variant.name}: res://vat_exr.gd decoded the EXR in (\\d+) ms$`, 'm'));
          t.diagnostic(`${variant.name}: vat_exr.gd decoded ${description.texture.width}×${description.texture.height} texels in ${ms?.[1]} ms as ${loss.bytes * 8}-bit floats: positions ${loss.steps} steps, normal codes changed in ${loss.codes} texels`);
          assert.equal(loss.bytes, 4);
          assert.equal(loss.steps, 0);
          assert.equal(loss.codes, 0);
        }
        if (variant.loader) {
          assert.match(godotLog, /^vat_exr\.gd: .*cut\.exr is truncated/m);
          assert.match(godotLog, /^vat_exr\.gd: .*Fox\.vat\.json is not an OpenEXR file$/m);
          assert.equal((godotLog.match(/^refused .*: True$/gm) ?? []).length, 2, 'vat_exr.gd returned null for both bad files');
        }
        if (variant.textureImport !== undefined) assert.match(godotLog, new RegExp(`^unit ${variant.name}: imported texels equal Image.load's: True$`, 'm'));
      }
    });
  }
});
