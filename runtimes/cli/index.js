// The package's API: bake() for build tools (lib/api.js), run() for the command line
// as a function (lib/run.js).
'use strict';
const { bake, BakeError } = require('./lib/api.js');
const { run } = require('./lib/run.js');

module.exports = { bake, BakeError, run };
