// Validates .glb/.gltf files with the Khronos glTF-Validator (npm package
// "gltf-validator", which ships no command line of its own). Prints one line per
// file and every error and warning; exits 1 if any file has an error.
//
//   NODE_PATH=<dir with node_modules> node validate.cjs FILE...
// scripts/bench.sh --validate installs the package into a temporary folder and runs this.
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

(async () => {
  let failed = false;
  for (const file of process.argv.slice(2)) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      maxIssues: 0,
      externalResourceFunction: (uri) =>
        new Promise((resolve, reject) => {
          try {
            resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri)))));
          } catch (e) {
            reject(e.toString());
          }
        }),
    });
    const i = report.issues;
    console.log(`${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ` +
      `${i.numHints} hints (glTF-Validator ${report.validatorVersion}; ` +
      `${report.info.totalVertexCount} vertices, ${report.info.animationCount} animations)`);
    for (const m of i.messages) {
      if (m.severity <= 1) console.log(`  ${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`);
    }
    failed = failed || i.numErrors > 0;
  }
  process.exit(failed ? 1 : 0);
})();
