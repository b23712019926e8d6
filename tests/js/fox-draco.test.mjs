// Fox compressed with KHR_draco_mesh_compression by glTF-Transform (Google's Draco
// encoder; fixtures/draco/make.sh), the file web builds ship. three.js decodes it with
// its DRACOLoader and the draco3d package (lib/draco-node.mjs); vatbake with draco-core.
// The Fox's 1,728 unshared points were welded into 434 on encoding; both readers
// keep the decoder's order.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'draco/Fox.draco.glb' });
// The same with the sequential method (no EdgeBreaker traversal).
fixtureSuite({ model: 'draco/Fox.draco-sequential.glb' });
