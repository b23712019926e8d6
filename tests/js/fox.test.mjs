// Fox: one skin, three named clips; also baked with --max-width 415, which wraps its
// 1,728 points into 5 bands of 346 columns (the last one 2 columns short) to check the band layout.
import { fixtureSuite } from './lib/suite.mjs';

fixtureSuite({ model: 'Fox/Fox.glb' });
fixtureSuite({ model: 'Fox/Fox.glb', args: ['--max-width', '415', '--name', 'Fox-bands'] });
// --delta second: every cross-check above runs on the texels the example's undoDelta gives.
fixtureSuite({ model: 'Fox/Fox.glb', args: ['--delta', 'second', '--max-width', '700', '--name', 'Fox-delta'] });
