// A character and its animations in different files (fixtures/variants/, made by the
// generator from the CC0 Kenney character): an avatar whose joints carry Mixamo's names
// without the prefix and no clips, and a library of the same skeleton with `mixamorig:`
// names and the clips but no mesh. The bake with --animations must agree on every row with
// three.js's AnimationMixer playing the library's clips on the avatar, tracks renamed the
// way three.js users do it (GLTFLoader sanitizes `mixamorig:Hips` to `mixamorigHips`).
import { fixtureSuite } from './lib/suite.mjs';
import { FIXTURES } from './lib/bake.mjs';
import path from 'node:path';

const library = 'variants/library-mixamo.glb';
fixtureSuite({
  model: 'variants/avatar-no-clips.glb',
  args: ['--animations', path.join(FIXTURES, library)],
  libraries: [library],
  renameTrack: (name) => name.replace(/^mixamorig/, ''),
});
