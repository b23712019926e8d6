// Bone bakes (--mode bones --format babylon), checked with other people's code: ktx-parse
// and three.js's KTX2Loader read the float texture, gltf-validator the skinned rest mesh,
// and three.js's own evaluation of the source (GLTFLoader + AnimationMixer + SkinnedMesh)
// must agree on every row of every clip with the rest mesh skinned on the CPU by the
// texture's matrices, within the vertex bakes' tolerance (1e-4 × the bounds diagonal).
// The Babylon.js JSON must hold the same matrices in Babylon's skeleton layout. Models
// whose clips animate morph targets are refused (exit 2) with advice to use vertex mode.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import * as THREE from 'three';
import { KTX2Loader } from 'three/examples/jsm/loaders/KTX2Loader.js';
import validator from 'gltf-validator';
import { bake, FIXTURES, vatbakeBin } from './lib/bake.mjs';
import { readDescription } from './lib/vat.mjs';
import { loadWithThree, pointRanges, captureRest, poser, worldPoints } from './lib/three-source.mjs';
import { readFloatTexture, readBoneMesh, makeBoneDecoder, readQuat16Matrices } from './lib/bones.mjs';

const POSITION_TOLERANCE = 1e-4; // × bounding diagonal, as for vertex bakes

const CARRIED = [
  'Fox/Fox.glb',
  'Fox/gltfpack/Fox.meshopt.glb',
  'draco/Fox.draco.glb',
  'CesiumMan/glTF-Binary/CesiumMan.glb',
  'CesiumMan/glTF-Draco/CesiumMan.gltf',
  'Kenney-MiniCharacters/character-female-a.glb',
  'Kenney-PlatformerCharacter/character.glb',
  'RiggedSimple/rigged-simple.gltf',
  'SimpleSkin/SimpleSkin.gltf',
  'variants/mixamo-armature-cm.glb',
  'variants/mesh-node-own-transform.glb',
  'variants/scaled-rotated-parent.glb',
  'variants/mesh-outside-armature.glb',
  'variants/skeleton-set.glb',
  'variants/skeleton-unset.glb',
  'variants/joints-shuffled.glb',
  'variants/two-meshes-one-skeleton.glb',
  'variants/split-take.glb',
  'variants/two-weight-sets.glb',
];

const MORPH_ANIMATED = ['AnimatedMorphCube/AnimatedMorphCube.gltf', 'MorphStressTest/MorphStressTest.gltf', 'variants/skinned-morph.glb'];

const fmt = (x) => x.toExponential(3);

/**
 * three.js's own evaluation of the source (GLTFLoader + AnimationMixer + SkinnedMesh) on
 * every row of every clip against the rest mesh skinned on the CPU by `floats` (16 a
 * matrix); the worst distance, and with 8 influences the first set's alone.
 */
async function againstThree(modelPath, desc, floats, mesh) {
  const { gltf, json } = await loadWithThree(modelPath);
  const { ranges, points, scene } = pointRanges(gltf, json);
  assert.equal(points, desc.points, 'three.js sees as many vertices as the rest mesh has');
  const pose = poser(scene, captureRest(scene));
  const decode = makeBoneDecoder(desc, floats, mesh);
  const decodeFirst = makeBoneDecoder(desc, floats, mesh, 1);
  const worst = { d: -1 };
  let firstSetOnly = 0;
  const p = new Float64Array(3);
  for (const clip of desc.clips) {
    const idx = clip.merged_from ?? [clip.source_index];
    const anims = idx.map((i) => gltf.animations[i]);
    for (let k = 0; k < clip.rows; k++) {
      pose(anims, k / clip.rate);
      const { pos } = worldPoints(ranges, points);
      for (let i = 0; i < points; i++) {
        decode(i, clip.row + k, p);
        const d = Math.hypot(p[0] - pos[3 * i], p[1] - pos[3 * i + 1], p[2] - pos[3 * i + 2]);
        if (d > worst.d) Object.assign(worst, { d, clip: clip.name, k, i });
        if (mesh.sets.length > 1) {
          decodeFirst(i, clip.row + k, p);
          firstSetOnly = Math.max(firstSetOnly, Math.hypot(p[0] - pos[3 * i], p[1] - pos[3 * i + 1], p[2] - pos[3 * i + 2]));
        }
      }
    }
  }
  return { worst, firstSetOnly };
}

for (const model of CARRIED) {
  describe(`bones: ${model}`, () => {
    const modelPath = path.resolve(FIXTURES, model);
    let state;
    const baked = () => {
      if (!state) {
        try {
          const run = bake(modelPath, ['--mode', 'bones', '--format', 'babylon']);
          const { desc, ktx2Path, restPath } = readDescription(run.description);
          state = { run, desc, ktx2Path, restPath, texture: readFloatTexture(ktx2Path), mesh: readBoneMesh(restPath) };
        } catch (error) {
          state = { error };
        }
      }
      if (state.error) throw state.error;
      return state;
    };

    test('KTX2 is R32G32B32A32_SFLOAT, 4 texels per joint, a row per frame (ktx-parse)', () => {
      const { desc, texture } = baked();
      const c = texture.container;
      assert.equal(c.vkFormat, 109, 'vkFormat');
      assert.equal(c.typeSize, 4, 'typeSize');
      assert.equal(c.supercompressionScheme, 2, 'zstd');
      assert.equal(c.pixelWidth, desc.bones.joints * 4, 'width = 4 × joints');
      assert.equal(c.pixelHeight, desc.rows, 'height = rows');
      assert.equal(desc.texture.width, c.pixelWidth);
      const dfd = c.dataFormatDescriptor[0];
      assert.equal(dfd.bytesPlane[0], 16, 'bytesPlane0');
      assert.deepEqual(dfd.samples.map((s) => [s.channelType, s.bitOffset, s.bitLength]),
        [[0xc0, 0, 31], [0xc1, 32, 31], [0xc2, 64, 31], [0xcf, 96, 31]], 'four signed float samples');
      assert.equal(texture.floats.length, desc.rows * desc.bones.joints * 16);
      assert.equal(desc.settings.mode, 'bones');
      assert.equal(desc.bones.sources.length, desc.bones.joints);
    });

    test('three.js KTX2Loader reads the same floats', async () => {
      const { ktx2Path, texture } = baked();
      const loader = new KTX2Loader();
      loader.workerConfig = {};
      const file = fs.readFileSync(ktx2Path);
      const tex = await new Promise((resolve, reject) => loader.parse(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength), resolve, reject));
      assert.equal(tex.type, THREE.FloatType, 'FloatType');
      assert.equal(tex.format, THREE.RGBAFormat, 'RGBAFormat');
      assert.ok(tex.image.data instanceof Float32Array);
      assert.deepEqual(Buffer.from(tex.image.data.buffer, tex.image.data.byteOffset, tex.image.data.byteLength), Buffer.from(texture.bytes));
    });

    test('rest GLB passes gltf-validator', async (t) => {
      const { restPath, mesh, desc } = baked();
      const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(restPath)), { uri: 'rest.glb', maxIssues: 0, writeTimestamp: false });
      const errors = report.issues.messages.filter((m) => m.severity === 0);
      t.diagnostic(`${model}: gltf-validator ${report.issues.numErrors} errors, ${report.issues.numWarnings} warnings`);
      assert.equal(report.issues.numErrors, 0, errors.slice(0, 5).map((m) => `${m.code} ${m.pointer}: ${m.message}`).join('\n'));
      assert.equal(mesh.sets.length, desc.bones.influences / 4, 'JOINTS_n sets = influences / 4');
      assert.equal(mesh.json.skins[0].joints.length, desc.bones.joints, 'one skin joint per matrix');
      assert.equal(mesh.position.length, desc.points, 'one vertex per point');
    });

    test('Babylon JSON: (joints + 1) × 4 wide, the texture\'s matrices then an identity per frame', () => {
      const { run, desc, texture } = baked();
      const babylon = JSON.parse(fs.readFileSync(path.join(run.out, desc.bones.babylon_file), 'utf8'));
      const joints = desc.bones.joints;
      assert.equal(babylon.width, (joints + 1) * 4);
      assert.equal(babylon.height, desc.rows);
      const data = new Float32Array(new Uint8Array(Buffer.from(babylon.vertexData, 'base64')).buffer);
      assert.equal(data.length, desc.rows * (joints + 1) * 16);
      const identity = new THREE.Matrix4().elements;
      for (let r = 0; r < desc.rows; r++) {
        const row = data.subarray(r * (joints + 1) * 16, (r + 1) * (joints + 1) * 16);
        assert.deepEqual([...row.subarray(0, joints * 16)], [...texture.floats.subarray(r * joints * 16, (r + 1) * joints * 16)], `frame ${r}`);
        assert.deepEqual([...row.subarray(joints * 16)], identity, `frame ${r} ends with an identity`);
      }
      assert.deepEqual(babylon.clips.map((c) => [c.name, c.from, c.to]), desc.clips.map((c) => [c.name, c.row, c.row + c.rows - 1]));
    });

    let comparing;
    const compare = () => (comparing ??= (async () => {
      const { desc, texture, mesh } = baked();
      return againstThree(modelPath, desc, texture.floats, mesh);
    })());

    test(`three.js: the rest mesh skinned by the texture within ${POSITION_TOLERANCE} × diagonal on every row`, async (t) => {
      const { desc } = baked();
      const { worst } = await compare();
      const diag = 2 * Math.hypot(...desc.positions.half_extent);
      t.diagnostic(`${model}: ${desc.bones.joints} matrices, ${desc.rows} rows, ${desc.points} points; max distance to three.js ${fmt(worst.d)} = ${fmt(worst.d / diag)} × diagonal (clip "${worst.clip}" row ${worst.k} point ${worst.i}); texture ${desc.texture.bytes} bytes`);
      assert.ok(worst.d <= POSITION_TOLERANCE * diag, `clip "${worst.clip}" row ${worst.k} point ${worst.i}: ${fmt(worst.d)} > ${fmt(POSITION_TOLERANCE * diag)}`);
    });

    test('the description\'s four-influence figure is present exactly when the rest mesh has 8', async (t) => {
      const { desc } = baked();
      const { firstSetOnly } = await compare();
      if (desc.bones.influences === 8) {
        const e = desc.bones.four_influence_error;
        assert.ok(e && e.max > 0 && e.max >= e.mean, 'four_influence_error has a max ≥ mean > 0');
        // The first set alone (not renormalized) moves points at least as far as the measured rows say.
        t.diagnostic(`${model}: 4 influences renormalized lose up to ${fmt(e.max)} (${fmt(e.max_fraction)} × diagonal, mean ${fmt(e.mean)}) over ${e.rows_measured} rows; JOINTS_0 alone, unnormalized, up to ${fmt(firstSetOnly)} over every row`);
        assert.ok(firstSetOnly > 0);
      } else {
        assert.equal(desc.bones.influences, 4);
        assert.equal(desc.bones.four_influence_error, null);
      }
    });

    after(() => {
      if (state?.run && !process.env.VATBAKE_JS_KEEP) fs.rmSync(state.run.out, { recursive: true, force: true });
    });
  });
}

// --bone-encoding quat16: the same models, the 16-bit texture read by ktx-parse and by
// three.js's stock KTX2Loader, rebuilt by the description's words, within the tolerance of
// three.js's SkinnedMesh; the texture is a quarter of the float one's texels.
for (const model of CARRIED) {
  test(`bones quat16: ${model}: RGBA16 UNORM, 2 texels a joint, within ${POSITION_TOLERANCE} × diagonal of three.js`, async (t) => {
    const modelPath = path.resolve(FIXTURES, model);
    const run = bake(modelPath, ['--mode', 'bones', '--bone-encoding', 'quat16']);
    const { desc, ktx2Path, restPath } = readDescription(run.description);
    assert.equal(desc.settings.bone_encoding, 'quat16');
    const diag = 2 * Math.hypot(...desc.positions.half_extent);
    if (desc.bones.encoding !== 'quat16') {
      // A rig the form cannot hold is baked in floats, and says so.
      assert.equal(desc.bones.encoding, 'float32');
      assert.match(run.stderr, /warning: --bone-encoding quat16 would put points/);
      t.diagnostic(`${model}: kept float32 (${run.stderr.split('\n').find((l) => l.includes('quat16'))})`);
      return;
    }
    const { container, codes, floats } = readQuat16Matrices(ktx2Path, desc);
    assert.deepEqual([container.vkFormat, container.typeSize, container.supercompressionScheme], [91, 2, 2]);
    assert.deepEqual([container.pixelWidth, container.pixelHeight], [desc.bones.joints * 2, desc.rows]);
    assert.equal(desc.texture.format, 'R16G16B16A16_UNORM');
    const loader = new KTX2Loader();
    loader.workerConfig = {};
    const file = fs.readFileSync(ktx2Path);
    const tex = await new Promise((resolve, reject) => loader.parse(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength), resolve, reject));
    assert.equal(tex.type, THREE.UnsignedShortType, 'three.js KTX2Loader: UnsignedShortType');
    assert.deepEqual(Buffer.from(tex.image.data.buffer, tex.image.data.byteOffset, tex.image.data.byteLength), Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength));
    const { worst } = await againstThree(modelPath, desc, floats, readBoneMesh(restPath));
    t.diagnostic(`${model}: quat16 ${desc.bones.joints} matrices × ${desc.rows} rows: max distance to three.js ${fmt(worst.d)} = ${fmt(worst.d / diag)} × diagonal (clip "${worst.clip}" row ${worst.k} point ${worst.i}); bones.max_error ${fmt(desc.bones.max_error / diag)} × diagonal; texture ${desc.texture.bytes} bytes, ${desc.texture.width * desc.rows * 8} on the GPU`);
    assert.ok(worst.d <= POSITION_TOLERANCE * diag, `clip "${worst.clip}" row ${worst.k} point ${worst.i}: ${fmt(worst.d)} > ${fmt(POSITION_TOLERANCE * diag)}`);
    assert.ok(desc.bones.max_error > 0 && desc.bones.max_error <= POSITION_TOLERANCE * diag, `bones.max_error ${desc.bones.max_error}`);
  });
}

for (const model of MORPH_ANIMATED) {
  test(`bones: ${model} animates morph targets: refused, exit 2, advice to use --mode vertices`, () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-js-'));
    try {
      const run = spawnSync(vatbakeBin(), ['bake', path.resolve(FIXTURES, model), '-o', out, '--mode', 'bones'], { encoding: 'utf8' });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, /animates the morph targets of node .*which a bone bake cannot carry.*bake this model with --mode vertices/s);
      assert.deepEqual(fs.readdirSync(out), [], 'nothing written');
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
}
