// Kenney platformer character: no skin, rigid meshes moved by animated nodes.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'Kenney-PlatformerCharacter/character.glb' });
