// Kenney mini character: two skins, 32 clips. Also its Draco copy (glTF-Transform at
// encode speed 0; fixtures/draco/make.sh): two Draco primitives with normals,
// tangents and two uv sets, read through three.js's DRACOLoader.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'Kenney-MiniCharacters/character-female-a.glb' });
fixtureSuite({ model: 'draco/character-female-a.draco.glb' });
