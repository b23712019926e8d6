// MorphStressTest: animated morph weights, two primitives on one node.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'MorphStressTest/MorphStressTest.gltf' });
