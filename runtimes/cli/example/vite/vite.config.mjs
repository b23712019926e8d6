import vatbake from './vatbake-plugin.mjs';

export default { plugins: [vatbake({ package: '../../index.js', zstdLevel: 9 })], logLevel: 'warn' };
