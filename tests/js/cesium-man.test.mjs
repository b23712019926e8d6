// CesiumMan (GLB): 19 unnamed clips. The Draco variant is out of scope.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'CesiumMan/glTF-Binary/CesiumMan.glb' });
