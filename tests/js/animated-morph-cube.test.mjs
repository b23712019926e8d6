// AnimatedMorphCube: morph weights without a skin; rotated and scaled node.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'AnimatedMorphCube/AnimatedMorphCube.gltf' });
