// The checks run for one bake of one model. Each *.test.mjs file calls fixtureSuite() for
// its model (once per set of bake options), so node --test runs models in parallel
// processes and every bake happens once.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { KTX2Loader } from 'three/examples/jsm/loaders/KTX2Loader.js';
import validator from 'gltf-validator';
import { bake, FIXTURES } from './bake.mjs';
import { readDescription, readTexture, makeDecoder, restColumns } from './vat.mjs';
import { loadWithThree, pointRanges, captureRest, poser, worldPoints } from './three-source.mjs';
import { readGlb, readAccessor } from './glb.mjs';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';
import { undoDelta } from '../../../runtimes/three/src/delta.js';

const POSITION_TOLERANCE = 1e-4; // × bounding diagonal, from the contract
// Float32 evaluation noise allowed beyond quantization, × (diagonal + 2·|centre|): float32
// rounding grows with the coordinates' size, not only with the model's.
const EVAL_TOLERANCE = 1e-6;
const NORMAL_TOLERANCE_DEG = 2; // octahedral 8+8 bits alone costs up to ~1°
const REST_NORMAL_TOLERANCE_DEG = 0.1;

const fmt = (x) => (Number.isFinite(x) ? x.toExponential(3) : String(x));

/**
 * @param {object} o
 * @param {string} o.model  path relative to fixtures/ (or absolute)
 * @param {boolean|string} [o.todo]  mark the whole fixture as todo (reported, not failing)
 * @param {string[]} [o.args]  extra vatbake arguments
 * @param {boolean} [o.firstWeightSet]  the reference is three.js's own SkinnedMesh, which
 *   skins with JOINTS_0/WEIGHTS_0 alone (for bakes with --max-influences 4)
 * @param {string[]} [o.libraries]  animation files (relative to fixtures/) baked with
 *   --animations: three.js plays their clips on the model through its AnimationMixer
 * @param {(track: string) => string} [o.renameTrack]  what a three.js user does to a
 *   library's track names before playing them on the model (e.g. strip `mixamorig`)
 */
export function fixtureSuite({ model, todo = false, args = [], firstWeightSet = false, libraries = [], renameTrack = (name) => name }) {
  const label = args.length ? `${model} ${args.join(' ')}` : model;
  const modelPath = path.resolve(FIXTURES, model);
  // Options for every test of this fixture: `todo` marks failures as expected.
  const opts = { todo };
  describe(label, () => {
    // Bake lazily and once: a missing binary or a failed bake then fails every test with
    // the bake's own message (a failing before() hook would only cancel them, and a
    // cancelled test could not be marked todo).
    let state;
    const baked = () => {
      if (!state) {
        try {
          const run = bake(modelPath, args);
          const { desc, ktx2Path, restPath } = readDescription(run.description);
          const texture = readTexture(ktx2Path);
          // The file's bytes as stored; a --delta bake's texels are then undone in
          // place by the example's own function, as the player does on load.
          const stored = Buffer.from(texture.bytes);
          undoDelta(texture.texels, desc);
          state = { run, desc, ktx2Path, restPath, texture, stored };
        } catch (error) {
          state = { error };
        }
      }
      if (state.error) throw state.error;
      return state;
    };

    test('description agrees with the source file and with itself', opts, () => {
      const { desc, ktx2Path } = baked();
      const bytes = fs.readFileSync(modelPath);
      assert.equal(desc.format, 'vatbake.vat');
      assert.equal(desc.format_version, 1);
      assert.equal(desc.source.bytes, bytes.length, 'source.bytes');
      assert.equal(desc.source.sha256, crypto.createHash('sha256').update(bytes).digest('hex'), 'source.sha256');
      assert.equal(desc.mesh.points, desc.points, 'mesh.points');
      const t = desc.texture;
      assert.equal(t.vk_format, 91);
      assert.equal(t.bands, Math.ceil(desc.points / t.width), 'bands = ceil(points / width)');
      assert.equal(t.height, desc.rows * t.bands, 'height = rows × bands');
      assert.equal(t.bytes, fs.statSync(ktx2Path).size, 'texture.bytes');
      let row = 0;
      for (const clip of desc.clips) {
        assert.equal(clip.row, row, `clip ${clip.name} starts right after the previous one`);
        assert.ok(clip.rows >= 1 && clip.rate > 0, `clip ${clip.name} has rows and a rate`);
        row += clip.rows;
      }
      assert.equal(row, desc.rows, 'rows = sum of clip rows');
    });

    test('KTX2 header (ktx-parse)', opts, () => {
      const { desc, texture } = baked();
      const c = texture.container;
      assert.equal(c.vkFormat, 91, 'vkFormat R16G16B16A16_UNORM');
      assert.equal(c.supercompressionScheme, 2, 'supercompressionScheme zstd');
      assert.equal(c.levelCount, 1, 'levelCount');
      assert.equal(c.levels.length, 1, 'levels');
      assert.equal(c.typeSize, 2, 'typeSize');
      assert.equal(c.pixelWidth, desc.texture.width, 'pixelWidth');
      assert.equal(c.pixelHeight, desc.texture.height, 'pixelHeight');
      assert.equal(c.pixelDepth, 0, 'pixelDepth');
      assert.equal(c.layerCount, 0, 'layerCount');
      assert.equal(c.faceCount, 1, 'faceCount');
      assert.equal(c.keyValue.KTXorientation, 'rd', 'KTXorientation');
      assert.match(String(c.keyValue.KTXwriter), /^vatbake/, 'KTXwriter');
      // The DFD must say plain linear 16-bit RGBA; an sRGB transfer would have loaders
      // (three's KTX2Loader included) decode the positions as colours.
      const dfd = c.dataFormatDescriptor[0];
      assert.equal(dfd.colorModel, 1, 'DFD colorModel RGBSDA');
      assert.equal(dfd.transferFunction, 1, 'DFD transferFunction linear');
      assert.equal(dfd.bytesPlane[0], 8, 'DFD bytesPlane0');
      assert.deepEqual(dfd.samples.map((x) => [x.channelType, x.bitOffset, x.bitLength, x.sampleLower, x.sampleUpper]),
        [[0, 0, 15, 0, 65535], [1, 16, 15, 0, 65535], [2, 32, 15, 0, 65535], [15, 48, 15, 0, 65535]], 'DFD samples R, G, B, A: 16 bits each');
      assert.equal(texture.bytes.byteLength, desc.texture.width * desc.texture.height * 8, 'level 0 size');
    });

    test('three.js KTX2Loader reads the same texels', opts, async () => {
      const { desc, ktx2Path, texture, stored } = baked();
      const loader = new KTX2Loader();
      // parse() refuses to run before detectSupport(renderer). That only fills the config
      // used to pick a Basis transcode target; vkFormat 91 takes the raw path (zstd in
      // three's own zstddec), so an empty config is enough and no renderer is needed.
      loader.workerConfig = {};
      const file = fs.readFileSync(ktx2Path);
      const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
      const tex = await new Promise((resolve, reject) => loader.parse(buffer, resolve, reject));
      assert.ok(tex.isDataTexture, 'a DataTexture');
      assert.equal(tex.image.width, desc.texture.width, 'width');
      assert.equal(tex.image.height, desc.texture.height, 'height');
      assert.equal(tex.type, THREE.UnsignedShortType, 'type');
      assert.equal(tex.format, THREE.RGBAFormat, 'format');
      const data = tex.image.data;
      assert.ok(data instanceof Uint16Array, 'u16 data');
      assert.equal(data.length, texture.texels.length, 'texel count');
      const same = Buffer.compare(Buffer.from(data.buffer, data.byteOffset, data.byteLength), stored) === 0;
      assert.ok(same, 'three.js (zstddec) and ktx-parse + fzstd give the same bytes');
    });

    test('rest GLB passes gltf-validator', opts, async (t) => {
      const { restPath } = baked();
      const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(restPath)), {
        uri: path.basename(restPath),
        maxIssues: 0,
        writeTimestamp: false,
        externalResourceFunction: (uri) => Promise.resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(restPath), decodeURIComponent(uri))))),
      });
      const { numErrors, numWarnings, numInfos, numHints, messages } = report.issues;
      t.diagnostic(`${label}: gltf-validator ${numErrors} errors, ${numWarnings} warnings, ${numInfos} infos, ${numHints} hints`);
      for (const m of messages.filter((m) => m.severity <= 1).slice(0, 10)) t.diagnostic(`  ${m.code} ${m.pointer ?? ''}: ${m.message}`);
      const errors = messages.filter((m) => m.severity === 0).slice(0, 10);
      assert.equal(numErrors, 0, `validator errors:\n${errors.map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`).join('\n')}`);
    });

    test('rest GLB TEXCOORD_1 addresses a column centre of its own per point', opts, (t) => {
      const { desc, restPath } = baked();
      const rest = readRestGlb(restPath);
      assert.ok(rest.uv1.length >= desc.points, `rest GLB has ${rest.uv1.length} vertices for ${desc.points} points`);
      const { width, height, bands } = desc.texture;
      let worst = 0;
      let worstAt = -1;
      const vs = new Set();
      const columns = restColumns(desc, rest.uv1);
      // The columns are a permutation of the points; in source order, column i is point i.
      assert.equal(new Set(columns).size, desc.points, 'every point has a column of its own');
      assert.ok(columns.every((c) => c < desc.points), 'every column holds a point');
      const order = desc.texture.column_order ?? 'source';
      assert.ok(['source', 'spatial'].includes(order), `column_order ${order}`);
      if (order === 'source') assert.ok(columns.every((c, i) => c === i), 'column_order "source": column i is point i');
      else assert.ok(columns.some((c, i) => c !== i) || desc.points < 3, 'column_order "spatial" reorders the columns');
      for (let i = 0; i < desc.points; i++) {
        const err = Math.abs(rest.uv1[i][0] - (columns[i] % width + 0.5) / width);
        if (err > worst) [worst, worstAt] = [err, i];
        vs.add(rest.uv1[i][1]);
        const band = Math.floor(columns[i] / width);
        assert.ok(Math.abs(rest.uv1[i][1] - (band * desc.rows) / height) <= 1e-6, `point ${i}: v = ${rest.uv1[i][1]} is not band ${band}'s top`);
      }
      assert.ok(vs.size <= bands, `${vs.size} v values for ${bands} bands`);
      t.diagnostic(`${label}: rest GLB ${rest.uv1.length} vertices (${rest.uv1.length - desc.points} beyond the points); TEXCOORD_1 max |u - (col+0.5)/width| = ${fmt(worst)}; v values: ${[...vs].slice(0, 4).join(', ')}${vs.size > 4 ? ' …' : ''}`);
      // float32 holds (col + 0.5) / width to ~6e-8; anything bigger is a wrong column or offset.
      assert.ok(worst <= 1e-6, `point ${worstAt}: u = ${rest.uv1[worstAt]?.[0]}, not a column centre`);
    });

    test('rest GLB POSITION min/max cover every baked position', opts, () => {
      const { desc, restPath, texture } = baked();
      const rest = readRestGlb(restPath);
      const decode = makeDecoder(desc, texture.texels, rest.uv1);
      const lo = [Infinity, Infinity, Infinity];
      const hi = [-Infinity, -Infinity, -Infinity];
      const p = new Float64Array(3);
      for (let r = 0; r < desc.rows; r++) {
        for (let i = 0; i < desc.points; i++) {
          decode(i, r, p);
          for (let c = 0; c < 3; c++) [lo[c], hi[c]] = [Math.min(lo[c], p[c]), Math.max(hi[c], p[c])];
        }
      }
      // Engines cull by the mesh bounds: they must hold the whole animation (SPEC §3.7).
      const eps = 1e-6 * 2 * Math.hypot(...desc.positions.half_extent);
      for (let c = 0; c < 3; c++) {
        assert.ok(rest.min[c] <= lo[c] + eps && rest.max[c] >= hi[c] - eps,
          `axis ${'xyz'[c]}: rest GLB bounds [${rest.min[c]}, ${rest.max[c]}] do not cover the baked [${lo[c]}, ${hi[c]}]`);
      }
    });

    // The reference: three.js's own loading and evaluation of the source model (once).
    let loading;
    const source = () => (loading ??= loadWithThree(modelPath).then(async ({ gltf, json }) => {
      const { ranges, points, scene } = pointRanges(gltf, json);
      if (firstWeightSet) for (const r of ranges) r.weightSets = Math.min(r.weightSets, 1);
      // An animation library's clips, their tracks renamed as the user would, to bind by
      // node name to the model's nodes.
      gltf.libraries = [];
      for (const library of libraries) {
        const { gltf: lib } = await loadWithThree(path.resolve(FIXTURES, library));
        gltf.libraries.push(lib.animations.map((clip) => {
          const renamed = clip.clone();
          for (const track of renamed.tracks) track.name = renameTrack(track.name);
          return renamed;
        }));
      }
      return { gltf, json, ranges, points, pose: poser(scene, captureRest(scene)) };
    }));
    // One pass over every row serves both the position and the normal test.
    let compared;
    const comparison = async () => {
      const { desc, texture } = baked();
      return (compared ??= compareAll(desc, texture, readRestGlb(baked().restPath).uv1, await source()));
    };

    test('three.js: same point count; skinning follows glTF', opts, async (t) => {
      const { desc } = baked();
      const src = await source();
      assert.equal(desc.points, src.points, 'points in the description = vertices three.js sees in contract order');
      for (const r of src.ranges) {
        if (!r.object.isSkinnedMesh) continue;
        // glTF ignores the skinned mesh node's own transform. three.js follows that only
        // because GLTFLoader binds with an identity bindMatrix; check it still does.
        assert.ok(isIdentity(r.object.bindMatrix), `node ${r.node}: three.js bindMatrix is not identity`);
        if (!isIdentity(r.object.matrixWorld)) t.diagnostic(`${label}: skinned mesh node ${r.node} has a non-identity world transform (ignored, per glTF)`);
      }
    });

    test('three.js: clip durations, and rows that span them', opts, async () => {
      const { desc } = baked();
      const src = await source();
      for (const clip of desc.clips) {
        const anims = sourceClips(clip, src.gltf);
        // three's clip duration is its last key time, as glTF defines a clip's length.
        const duration = Math.max(...anims.map((a) => a.duration));
        assert.ok(clip.duration > 0 && clip.rate > 0, `clip "${clip.name}": duration and rate are positive`);
        assert.ok(Math.abs(clip.duration - duration) <= 1e-5 * Math.max(1, duration), `clip "${clip.name}": duration ${clip.duration}, three.js says ${duration}`);
        if (clip.rows > 1) {
          // Rows sample t = k / rate: the last one must reach the clip's end, not stop a frame short.
          const last = (clip.rows - 1) / clip.rate;
          assert.ok(Math.abs(last - duration) <= 1e-4, `clip "${clip.name}": last row at t=${last}, clip ends at ${duration}`);
        }
      }
    });

    test(`three.js: positions within ${POSITION_TOLERANCE} × bounding diagonal on every row`, opts, async (t) => {
      const { desc } = baked();
      const result = await comparison();
      const diag = 2 * Math.hypot(...desc.positions.half_extent);
      const limit = POSITION_TOLERANCE * diag;
      const w = result.worstPos;
      t.diagnostic(`${label}: positions max distance ${fmt(w.d)} = ${fmt(w.d / diag)} × diagonal ${fmt(diag)} (clip "${w.clip}" row ${w.k}, point ${w.i}); description's positions.precision ${fmt(desc.positions.precision)}`);
      const bad = result.rowMax.filter((r) => r.d > limit);
      assert.equal(bad.length, 0, `${bad.length} of ${result.rowMax.length} rows exceed ${fmt(limit)}; worst rows:\n` +
        bad.sort((a, b) => b.d - a.d).slice(0, 8).map((r) => `  clip "${r.clip}" (#${r.source}) row ${r.k} t=${r.t.toFixed(5)}: ${fmt(r.d)} at point ${r.i} three=${fmtV(r.expected)} vat=${fmtV(r.got)}`).join('\n'));
    });

    test(`three.js: positions within half a unorm16 step per axis (+ float32 noise)`, opts, async (t) => {
      // Stricter than the contract's bound: the texture should differ from three.js only by
      // its quantization (SPEC §5), plus float32 evaluation noise. This exposes evaluation
      // differences far below 1e-4 × diagonal.
      const { desc } = baked();
      const result = await comparison();
      const diag = 2 * Math.hypot(...desc.positions.half_extent);
      const scale = diag + 2 * Math.hypot(...desc.positions.center);
      const w = result.worstExcess;
      t.diagnostic(`${label}: worst excess over half a step ${fmt(w.e)} = ${fmt(w.e / diag)} × diagonal (axis ${w.axis}, clip "${w.clip}" row ${w.k}, point ${w.i})`);
      assert.ok(w.e <= EVAL_TOLERANCE * scale, `clip "${w.clip}" row ${w.k} point ${w.i} axis ${w.axis}: ${fmt(w.e)} beyond half a step; three ${fmtV(w.expected)} vat ${fmtV(w.got)}`);
    });

    test('a coarser grid: stored values on it, and the recorded error is three.js\'s', opts, async (t) => {
      const { desc, texture } = baked();
      const grid = desc.positions.grid;
      if (!grid) {
        assert.equal(desc.positions.max_error, undefined, 'max_error only with a grid');
        return;
      }
      // Every position value (delta undone) is a multiple of its axis's cell, or 65535.
      let off = 0;
      for (let i = 0; i < texture.texels.length; i += 4) {
        for (let c = 0; c < 3; c++) {
          const v = texture.texels[i + c];
          if (v % grid[c] !== 0 && v !== 65535) off++;
        }
      }
      assert.equal(off, 0, `${off} position values off the grid ${grid}`);
      // precision is half a cell on every axis; max_error is what three.js measures too.
      const bound = Math.hypot(...desc.positions.half_extent.map((h, c) => (h / 65535) * grid[c]));
      assert.ok(Math.abs(desc.positions.precision - bound) <= 1e-6 * bound, `precision ${desc.positions.precision}, half a cell ${bound}`);
      const result = await comparison();
      const diag = 2 * Math.hypot(...desc.positions.half_extent);
      const scale = diag + 2 * Math.hypot(...desc.positions.center);
      t.diagnostic(`${label}: grid ${grid}; max_error ${fmt(desc.positions.max_error)}, three.js measures ${fmt(result.worstPos.d)}, precision ${fmt(desc.positions.precision)}`);
      assert.ok(desc.positions.max_error <= desc.positions.precision, 'max_error within precision');
      assert.ok(Math.abs(result.worstPos.d - desc.positions.max_error) <= EVAL_TOLERANCE * scale,
        `three.js's worst distance ${result.worstPos.d} against the recorded ${desc.positions.max_error}`);
      if (desc.settings.tolerance !== undefined) assert.ok(desc.positions.precision <= desc.settings.tolerance, 'within --tolerance');
    });

    test(`three.js: normals within ${NORMAL_TOLERANCE_DEG}° on every row`, opts, async (t) => {
      const result = await comparison();
      assert.ok(Object.keys(result.worstNor).length > 0, 'no normal was compared');
      for (const [kind, w] of Object.entries(result.worstNor)) {
        const what = kind === 'source' ? 'source NORMAL' : 'no NORMAL in source, rest normals from three computeVertexNormals()';
        t.diagnostic(`${label}: normals (${what}) max angle ${w.deg.toFixed(3)}° (clip "${w.clip}" row ${w.k}, point ${w.i}) over ${w.samples} samples`);
      }
      for (const [kind, w] of Object.entries(result.worstNor)) {
        assert.ok(w.deg <= NORMAL_TOLERANCE_DEG, `${kind} normals: clip "${w.clip}" row ${w.k} point ${w.i}: ${w.deg.toFixed(3)}°, three ${fmtV(w.expected)} vat ${fmtV(w.got)}`);
      }
    });

    test('three.js: rest GLB positions and normals are the source rest pose', opts, async (t) => {
      const { desc, restPath } = baked();
      const rest = readRestGlb(restPath);
      assert.ok(rest.normal, 'the rest GLB has NORMAL (docs/FORMAT.md)');
      const src = await source();
      src.pose([], 0); // no clip: every node at its rest TRS, morph weights at their defaults
      const { pos, nor } = worldPoints(src.ranges, src.points, { normals: true });
      const diag = 2 * Math.hypot(...desc.positions.half_extent);
      let worst = { d: -1 };
      let worstN = { deg: -1 };
      for (let i = 0; i < src.points; i++) {
        const [x, y, z] = rest.position[i];
        const d = Math.hypot(x - pos[i * 3], y - pos[i * 3 + 1], z - pos[i * 3 + 2]);
        if (d > worst.d) worst = { d, i };
        if (rest.normal && !Number.isNaN(nor[i * 3])) {
          const [a, b, c] = rest.normal[i];
          const dot = (a * nor[i * 3] + b * nor[i * 3 + 1] + c * nor[i * 3 + 2]) / Math.hypot(a, b, c);
          const deg = (Math.acos(Math.min(1, Math.max(-1, dot))) * 180) / Math.PI;
          if (deg > worstN.deg) worstN = { deg, i };
        }
      }
      t.diagnostic(`${label}: rest GLB vs three.js rest pose: max distance ${fmt(worst.d)} (${fmt(worst.d / diag)} × diagonal) at point ${worst.i}; normals max ${worstN.deg.toFixed(4)}° at point ${worstN.i}`);
      assert.ok(worst.d <= POSITION_TOLERANCE * diag, `point ${worst.i}: rest GLB ${fmtV(rest.position[worst.i])}, three.js ${fmtV(pos.subarray(worst.i * 3, worst.i * 3 + 3))}`);
      // Rest normals are stored as floats, so only float rounding separates them.
      assert.ok(worstN.deg <= REST_NORMAL_TOLERANCE_DEG, `point ${worstN.i}: rest GLB normal ${fmtV(rest.normal?.[worstN.i])}, three.js ${fmtV(nor.subarray(worstN.i * 3, worstN.i * 3 + 3))}`);
    });

    // Bake output goes to a fresh temp dir; keep it with VATBAKE_JS_KEEP=1 to inspect it.
    after(() => {
      if (state?.run && !process.env.VATBAKE_JS_KEEP) fs.rmSync(state.run.out, { recursive: true, force: true });
    });
  });
}

function isIdentity(m, eps = 1e-12) {
  return m.elements.every((v, i) => Math.abs(v - (i % 5 === 0 ? 1 : 0)) <= eps);
}

const fmtV = (v) => (v ? `(${[...v].map((x) => x.toFixed(6)).join(', ')})` : '-');

/** The rest GLB's vertices in contract order: POSITION (+ accessor bounds), NORMAL, TEXCOORD_1. */
function readRestGlb(restPath) {
  const { json, bin } = readGlb(new Uint8Array(fs.readFileSync(restPath)));
  const buffers = glbBuffers(json, bin);
  const out = { position: [], normal: [], uv1: [], min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
  const seen = new Set(); // primitives may share one vertex set (one per material)
  visitPrimitives(json, (prim) => {
    const { POSITION, NORMAL, TEXCOORD_1 } = prim.attributes;
    if (seen.has(POSITION)) return;
    seen.add(POSITION);
    assert.ok(TEXCOORD_1 !== undefined, 'every rest primitive has TEXCOORD_1');
    const positions = readAccessor(json, buffers, POSITION);
    const acc = json.accessors[POSITION];
    for (let c = 0; c < 3; c++) [out.min[c], out.max[c]] = [Math.min(out.min[c], acc.min[c]), Math.max(out.max[c], acc.max[c])];
    out.position.push(...positions);
    if (NORMAL === undefined) out.normal = null;
    else if (out.normal) out.normal.push(...readAccessor(json, buffers, NORMAL));
    const uv1 = readAccessor(json, buffers, TEXCOORD_1);
    assert.equal(uv1.length, positions.length, 'TEXCOORD_1 count = POSITION count');
    out.uv1.push(...uv1);
  });
  return out;
}

// three.js's meshoptimizer decoder (WebAssembly), ready before any rest GLB is read.
await MeshoptDecoder.ready;

/**
 * The GLB's buffers as accessors read them: its BIN chunk, and for a file under
 * EXT_meshopt_compression (`--rest-mesh meshopt`) the fallback buffer filled with every
 * compressed view decoded by three.js's MeshoptDecoder.
 */
function glbBuffers(json, bin) {
  const buffers = [bin];
  (json.buffers ?? []).forEach((buffer, i) => {
    if (i > 0) buffers.push(new Uint8Array(buffer.byteLength));
  });
  for (const view of json.bufferViews ?? []) {
    const ext = view.extensions?.EXT_meshopt_compression;
    if (!ext) continue;
    const source = buffers[ext.buffer].subarray(ext.byteOffset ?? 0, (ext.byteOffset ?? 0) + ext.byteLength);
    const target = buffers[view.buffer].subarray(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength);
    MeshoptDecoder.decodeGltfBuffer(target, ext.count, ext.byteStride, source, ext.mode, ext.filter ?? 'NONE');
  }
  return buffers;
}

/** Contract order over a GLB/glTF JSON: scene roots depth-first, primitives in order. */
function visitPrimitives(json, fn) {
  const visit = (n) => {
    const node = json.nodes[n];
    if (node.mesh !== undefined) json.meshes[node.mesh].primitives.forEach((p) => fn(p, n));
    for (const c of node.children || []) visit(c);
  };
  for (const n of json.scenes[json.scene ?? 0].nodes) visit(n);
}

/** The source animation(s) a baked clip samples: every one it was merged from (played together), else its own. */
function sourceClips(clip, gltf) {
  const idx = clip.merged_from ?? clip.source_index;
  const list = Array.isArray(idx) ? idx : [idx];
  // A clip from an animation file (--animations) indexes that file's animations.
  const animations = clip.animations_file === undefined ? gltf.animations : gltf.libraries[clip.animations_file];
  return list.map((i) => {
    const anim = animations[i];
    if (!anim) throw new Error(`clip "${clip.name}": source animation ${i} does not exist`);
    return anim;
  });
}

/** Pose every row of every clip in three.js and compare with the decoded texture. */
function compareAll(desc, texture, uv1, src) {
  const decode = makeDecoder(desc, texture.texels, uv1);
  const p = new Float64Array(3);
  const n = new Float64Array(3);
  const rowMax = [];
  const worstPos = { d: -1 };
  const worstNor = {}; // by kind: 'source' NORMAL or 'generated' by three
  const generated = new Uint8Array(src.points);
  for (const r of src.ranges) if (r.object.userData.vatGeneratedNormals) generated.fill(1, r.start, r.start + r.count);
  // Half a unorm16 step per axis: what quantization alone may cost; half a grid cell
  // with --tolerance or --bits (positions.grid, docs/FORMAT.md).
  const cell = desc.positions.grid ?? [1, 1, 1];
  const halfStep = desc.positions.half_extent.map((h, c) => (h / 65535) * cell[c]);
  const worstExcess = { e: -Infinity };
  for (const clip of desc.clips) {
    const anims = sourceClips(clip, src.gltf);
    for (let k = 0; k < clip.rows; k++) {
      const t = k / clip.rate;
      src.pose(anims, t);
      const { pos, nor } = worldPoints(src.ranges, src.points, { normals: true });
      const row = { clip: clip.name, source: clip.source_index, k, t, d: -1 };
      for (let i = 0; i < src.points; i++) {
        decode(i, clip.row + k, p, n);
        const e = pos.subarray(i * 3, i * 3 + 3);
        const d = Math.hypot(p[0] - e[0], p[1] - e[1], p[2] - e[2]);
        if (d > row.d) Object.assign(row, { d, i, expected: [...e], got: [...p] });
        if (d > worstPos.d) Object.assign(worstPos, { d, clip: clip.name, k, i });
        for (let c = 0; c < 3; c++) {
          const excess = Math.abs(p[c] - e[c]) - halfStep[c];
          if (excess > worstExcess.e) Object.assign(worstExcess, { e: excess, axis: 'xyz'[c], clip: clip.name, k, i, expected: [...e], got: [...p] });
        }
        if (!Number.isNaN(nor[i * 3])) {
          const en = nor.subarray(i * 3, i * 3 + 3);
          const dot = Math.min(1, Math.max(-1, n[0] * en[0] + n[1] * en[1] + n[2] * en[2]));
          const deg = (Math.acos(dot) * 180) / Math.PI;
          const w = (worstNor[generated[i] ? 'generated' : 'source'] ??= { deg: -1, samples: 0 });
          w.samples++;
          if (deg > w.deg) Object.assign(w, { deg, clip: clip.name, k, i, expected: [...en], got: [...n] });
        }
      }
      rowMax.push(row);
    }
  }
  return { rowMax, worstPos, worstNor, worstExcess };
}
