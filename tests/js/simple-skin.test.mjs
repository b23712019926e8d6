// SimpleSkin: the smallest skin, embedded data: URIs. Also baked with --max-frames 7 so
// the rate is not the fps (6 rows over 5.5 s) and t = k / rate is checked off the grid.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'SimpleSkin/SimpleSkin.gltf' });
fixtureSuite({ model: 'SimpleSkin/SimpleSkin.gltf', args: ['--max-frames', '7', '--name', 'SimpleSkin-7'] });
