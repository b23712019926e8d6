// Kenney mini character: two skins, 32 clips.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'Kenney-MiniCharacters/character-female-a.glb' });
