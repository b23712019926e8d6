// CesiumMan, GLB and Draco: 19 unnamed animations, one per joint, baked as one clip
// (merged_from 0–18, which three.js plays together). The Draco variant
// decodes to 3,572 points where its accessors say 3,273: both three.js and vatbake
// use the decoded points, in the decoder's order.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'CesiumMan/glTF-Binary/CesiumMan.glb' });
fixtureSuite({ model: 'CesiumMan/glTF-Draco/CesiumMan.gltf' });
