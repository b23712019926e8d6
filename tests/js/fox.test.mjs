// Fox: one skin, three named clips; also baked with --max-width 500, which wraps its
// 1,728 points into 4 bands (the last one partly filled) to check the band layout.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'Fox/Fox.glb' });
fixtureSuite({ model: 'Fox/Fox.glb', args: ['--max-width', '500', '--name', 'Fox-bands'] });
