// Runs vatbake.wasm (the command line built for wasm32-wasip1) under Node's own WASI.
// The module sees the host's file system from "/" (one preopened folder), and starts in
// the host's working folder (VATBAKE_WASI_CWD, which the command line moves to), so that
// the paths a user names mean what they mean to the native binary, and messages quote
// them as given. Windows paths are not handled (a drive letter is no WASI path).
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const WASM = path.join(__dirname, '..', 'vatbake.wasm');
let compiled;

function loadWasi() {
  // Node prints an ExperimentalWarning when WASI is first used: the output of a
  // command is the command's own, so that one warning is not shown.
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const text = typeof warning === 'string' ? warning : warning && warning.message;
    if (/WASI/.test(String(text))) return;
    emitWarning.call(process, warning, ...rest);
  };
  try {
    return require('node:wasi').WASI;
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
  const WASI = loadWasi();
  const cwd = path.resolve(options.cwd || process.cwd());
  const wasi = new WASI({
    version: 'preview1',
    args: ['vatbake', ...args],
    env: { ...environment(), VATBAKE_WASI_CWD: cwd, TMPDIR: os.tmpdir() },
    preopens: { '/': '/' },
    stdin: options.stdin ?? 0,
    stdout: options.stdout ?? 1,
    stderr: options.stderr ?? 2,
    returnOnExit: true,
  });
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const text = typeof warning === 'string' ? warning : warning && warning.message;
    if (/WASI/.test(String(text))) return;
    emitWarning.call(process, warning, ...rest);
  };
  let instance;
  try {
    instance = new WebAssembly.Instance(module_(), wasi.getImportObject());
  } finally {
    process.emitWarning = emitWarning;
  }
  return wasi.start(instance);
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
