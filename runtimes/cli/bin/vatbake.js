#!/usr/bin/env node
// The `vatbake` command of the npm package: the native binary's commands, flags,
// output and exit codes, from the WebAssembly build (lib/run.js).
'use strict';
const { run } = require('../lib/run.js');

process.exitCode = run(process.argv.slice(2));
