// Fox packed by gltfpack: EXT_meshopt_compression + KHR_mesh_quantization, the file a
// game ships. three.js decodes it with its own MeshoptDecoder; vatbake with meshoptimizer.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'Fox/gltfpack/Fox.meshopt.glb' });
