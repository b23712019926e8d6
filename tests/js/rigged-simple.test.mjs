// RiggedSimple: external .bin; the skinned mesh node sits under transformed parents.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'RiggedSimple/rigged-simple.gltf' });
