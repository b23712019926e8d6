// Bone bakes in a real browser (Debian's Chromium, headless, WebGL2 on SwiftShader). Each
// fixture is baked with --mode bones --format babylon, then drawn as silhouettes:
// - three.js: @vatbake/three's loadBoneVat (runtimes/three/src/bones.js) against three.js's
//   SkinnedMesh/AnimationMixer playback of the source, at several rows of every clip;
// - Babylon.js (npm, pinned): the rest GLB through Babylon's glTF loader, playing the JSON
//   with Babylon's own BakedVertexAnimationManager, against Babylon's own skeletal playback
//   of the source (its AnimationGroups).
// The masks must agree (IoU ≥ 0.98, as the vertex-bake playback test asks). A negative
// control draws a different row than the source's time and must drop below it.
// The same fixtures baked with --bone-encoding quat16 (the 16-bit texture, decoded in the
// shader) are drawn by loadBoneVat against SkinnedMesh the same way, and every vertex's
// skinned position, read back from the GPU, is held within 1e-4 of the diagonal of the
// float32 bake's as the same shader draws it (which tests/js holds to three.js's SkinnedMesh).
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, browserSession, checkedRows, decodeMask as mask, fixture as named, iou, MIN_IOU, REPO, SIZE, sourcesOf } from './lib/compare.mjs';

// `babylon`: Babylon's glTF loader reads the source (no Draco/meshopt decoders are wired here).
const FIXTURES = [
  named('Fox'),
  named('CesiumMan'),
  named('Kenney-MiniCharacters', { clips: ['walk', 'sprint', 'die'] }),
  named('Kenney-PlatformerCharacter', { clips: ['idle', 'walk', 'jump'] }),
  named('RiggedSimple'),
];

const session = browserSession({
  BIN, REPO, size: SIZE, modules: ['bones'],
  async init(page) {
    const info = await page.evaluate((s) => window.bones.init(s), SIZE);
    console.log(`# browser: ${JSON.stringify(info)}`);
  },
});

function bake(fixture) {
  const files = session.files({ ...fixture, allPoints: false, args: ['--mode', 'bones', '--format', 'babylon'] });
  const description = files.json;
  return {
    description,
    descriptionUrl: files.description,
    restUrl: files.base + description.mesh.file,
    babylonUrl: files.base + description.bones.babylon_file,
    sourceUrl: files.source,
  };
}

const POSITION_TOLERANCE = 1e-4; // × bounds diagonal, as tests/js/bones.test.mjs

/** Rows a quarter, a third and half of the clip away from row k (wrapping). */
const wrongRows = (clip, k) => [4, 3, 2].map((d) => (k + Math.round(clip.rows / d)) % clip.rows);


for (const fixture of FIXTURES) {
  describe(`bones: ${fixture.name}`, () => {
    let urls;
    let clips;
    const page = () => session.page();
    before(async () => {
      urls = bake(fixture);
      clips = urls.description.clips.filter((c) => !fixture.clips || fixture.clips.includes(c.name));
    });

    test('three.js: loadBoneVat matches SkinnedMesh playback of the source', async (t) => {
      await page().evaluate((o) => window.bones.loadThree(o), urls);
      const baked = (clip, k) => page().evaluate(([c, s]) => window.bones.renderThreeBones(c, s), [clip.name, k / clip.rate]);
      const source = (clip, k) => page().evaluate(([i, s]) => window.bones.renderThreeSource(i, s), [sourcesOf(clip), k / clip.rate]);
      await compareWithSource(t, `${fixture.name} three.js`, baked, source, { fixture, clips, description: urls.description });
    });

    test('Babylon.js: BakedVertexAnimationManager with the JSON matches Babylon\'s skeletal playback', async (t) => {
      const info = await page().evaluate((o) => window.bones.loadBabylon(o), { ...urls, description: urls.description });
      const joints = urls.description.bones.joints;
      t.diagnostic(`${fixture.name} Babylon: skeleton of ${info.bones} bones, VAT texture ${info.textureWidth}×${info.textureHeight}`);
      assert.equal(info.bones, joints, 'Babylon builds one bone per matrix');
      assert.equal(info.textureWidth, (joints + 1) * 4);
      assert.equal(info.textureHeight, urls.description.rows);
      const baked = (clip, k) => page().evaluate((row) => window.bones.renderBabylonBones(row), clip.row + k);
      const source = (clip, k) => page().evaluate(([i, s]) => window.bones.renderBabylonSource(i, s), [sourcesOf(clip), k / clip.rate]);
      await compareWithSource(t, `${fixture.name} Babylon`, baked, source, { fixture, clips, description: urls.description });
    });

  });
}

/**
 * The baked playback's mask at checkedRows of every clip against the source's at the same
 * time (IoU ≥ MIN_IOU), then the control: rows a quarter to half the clip away from
 * the source's time at fixture.control must fall below it. `baked(clip, k)` and
 * `source(clip, k)` draw row k of the clip and give the page's mask.
 */
async function compareWithSource(t, who, baked, source, { fixture, clips, description }) {
  let worst = { iou: 2 };
  for (const clip of clips) {
    for (const k of checkedRows(clip)) {
      const a = mask(await baked(clip, k));
      const b = mask(await source(clip, k));
      const r = iou(a, b);
      assert.ok(r.union > 100, `clip ${clip.name} row ${k}: almost nothing drawn (${r.union} pixels)`);
      if (r.iou < worst.iou) worst = { ...r, clip: clip.name, k };
    }
  }
  t.diagnostic(`${who}: worst IoU ${worst.iou.toFixed(4)} (clip "${worst.clip}" row ${worst.k})`);
  assert.ok(worst.iou >= MIN_IOU, `clip ${worst.clip} row ${worst.k}: IoU ${worst.iou}`);
  const clip = description.clips.find((c) => c.name === fixture.control.clip);
  const k = Math.round(fixture.control.at * (clip.rows - 1));
  const b = mask(await source(clip, k));
  let control = 2;
  for (const wrong of wrongRows(clip, k)) control = Math.min(control, iou(mask(await baked(clip, wrong)), b).iou);
  t.diagnostic(`${who} control (rows a quarter to half the clip off): IoU ${control.toFixed(4)}`);
  assert.ok(control < MIN_IOU, `the control passed: IoU ${control}`);
}

const floats = (b64) => new Float32Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer);

for (const fixture of FIXTURES) {
  describe(`bones quat16: ${fixture.name}`, () => {
    let urls;
    let reference;
    let clips;
    const page = () => session.page();
    before(async () => {
      const files = session.files({ ...fixture, name: `${fixture.name}-quat16`, allPoints: false, args: ['--mode', 'bones', '--bone-encoding', 'quat16'] });
      reference = session.files({ ...fixture, name: `${fixture.name}-float32`, allPoints: false, args: ['--mode', 'bones'] });
      urls = { description: files.json, descriptionUrl: files.description, sourceUrl: files.source, referenceUrl: reference.description };
      clips = files.json.clips.filter((c) => !fixture.clips || fixture.clips.includes(c.name));
    });

    test('three.js: loadBoneVat of the 16-bit texture matches SkinnedMesh playback, and the float bake\'s positions on the GPU', async (t) => {
      const { description } = urls;
      assert.deepEqual([description.bones.encoding, description.texture.vk_format], ['quat16', 91]);
      await page().evaluate((o) => window.bones.loadThree(o), urls);
      const diagonal = 2 * Math.hypot(...description.positions.half_extent);
      let worst = { d: -1 };
      let path;
      for (const clip of clips) {
        for (const k of checkedRows(clip)) {
          const a = await page().evaluate(([c, s]) => window.bones.bonePositions('bones', c, s), [clip.name, k / clip.rate]);
          const b = await page().evaluate(([c, s]) => window.bones.bonePositions('reference', c, s), [clip.name, k / clip.rate]);
          path = a.path;
          const [p, q] = [floats(a.positions), floats(b.positions)];
          assert.equal(p.length, description.points * 3);
          for (let i = 0; i < description.points; i++) {
            const d = Math.hypot(p[3 * i] - q[3 * i], p[3 * i + 1] - q[3 * i + 1], p[3 * i + 2] - q[3 * i + 2]);
            if (!(d <= worst.d)) worst = { d, clip: clip.name, k, i };
          }
        }
      }
      t.diagnostic(`${fixture.name} quat16 (${path} upload): worst distance on the GPU to the float32 bake ${worst.d.toExponential(3)} = ${(worst.d / diagonal).toExponential(3)} × diagonal (clip "${worst.clip}" row ${worst.k} vertex ${worst.i}); bones.max_error ${(description.bones.max_error / diagonal).toExponential(3)} × diagonal; GPU ${description.texture.width * description.rows * 8} bytes against ${reference.json.texture.width * reference.json.rows * 16}`);
      assert.ok(worst.d <= POSITION_TOLERANCE * diagonal, `clip ${worst.clip} row ${worst.k} vertex ${worst.i}: ${worst.d} > ${POSITION_TOLERANCE * diagonal}`);
      assert.ok(worst.d > 0, 'the 16-bit form moved no vertex: is it drawn at all?');
      const baked = (clip, k) => page().evaluate(([c, s]) => window.bones.renderThreeBones(c, s), [clip.name, k / clip.rate]);
      const source = (clip, k) => page().evaluate(([i, s]) => window.bones.renderThreeSource(i, s), [sourcesOf(clip), k / clip.rate]);
      await compareWithSource(t, `${fixture.name} quat16 three.js`, baked, source, { fixture, clips, description });
    });
  });
}
