// Runs vatbake.wasm (the command line built for wasm32-wasip1) under Node's own WASI.
// The module sees the host's file system from "/" (one preopened folder), and starts in
// the host's working folder (VATBAKE_WASI_CWD, which the command line moves to), so that
// the paths a user names mean what they mean to the native binary, and messages quote
// them as given. Windows paths are not handled (a drive letter is no WASI path).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// Node 20 crashed now and then (SIGSEGV in a property load, about 1 run in 15 under
// load) after a bake through its WASI; its WASI calls take V8's "fast API" path from
// optimised code. That path off, for this process. The likely cause is Node's, open
// upstream (nodejs/node#46777; #53087 on Node 22): inside a fast call its WASI
// allocates through a memory manager that reports the bytes to V8
// (AdjustAmountOfExternalAllocatedMemory), which may start a garbage collection there,
// where V8 allows none. Our crash fits it (timing-dependent, after many WASI calls,
// gone with fast calls off); not proven to be it. The flag stays on every Node.
require('node:v8').setFlagsFromString('--no-turbo-fast-api-calls');

const WASM = path.join(__dirname, '..', 'vatbake.wasm');
let compiled;
const running = new Set();

/** Runs `make` with Node's ExperimentalWarning about WASI not shown: the output of a
 * command is the command's own. Other warnings pass. */
function quietly(make) {
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const text = typeof warning === 'string' ? warning : warning && warning.message;
    if (/WASI/.test(String(text))) return;
    emitWarning.call(process, warning, ...rest);
  };
  try {
    return make();
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** Compiles the module once per process. */
function module_() {
  if (!compiled) compiled = new WebAssembly.Module(fs.readFileSync(WASM));
  return compiled;
}

/**
 * Runs `vatbake ARGS…` to the end and returns its exit code. `options.cwd` is the
 * folder relative paths are taken from (the process's by default); `options.stdout`
 * and `options.stderr` are file descriptors (the process's by default).
 */
function run(args, options = {}) {
  const { WASI } = quietly(() => require('node:wasi'));
  const cwd = path.resolve(options.cwd || process.cwd());
  const wasi = quietly(
    () =>
      new WASI({
        version: 'preview1',
        args: ['vatbake', ...args],
        env: { ...environment(), VATBAKE_WASI_CWD: cwd },
        preopens: { '/': '/' },
        stdin: options.stdin ?? 0,
        stdout: options.stdout ?? 1,
        stderr: options.stderr ?? 2,
        returnOnExit: true,
      }),
  );
  const instance = new WebAssembly.Instance(module_(), wasi.getImportObject());
  // The WASI object is held while the module runs: Node 20 lets the garbage collector
  // take it once start() is entered (its calls still in use), and aborted the process
  // under memory pressure (a level 19 bake of a large model).
  running.add(wasi);
  try {
    return wasi.start(instance);
  } finally {
    running.delete(wasi);
  }
}

/** The variables vatbake reads (NO_COLOR, VATBAKE_*, RUST_BACKTRACE), passed on. */
function environment() {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name === 'NO_COLOR' || name.startsWith('VATBAKE_') || name === 'RUST_BACKTRACE') env[name] = value;
  }
  return env;
}

module.exports = { run, WASM };
