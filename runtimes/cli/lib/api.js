// bake(inputBytes, options): the command line's bake, from bytes to bytes, for build
// tools. It runs vatbake.wasm under Node's WASI (bin/vatbake.js) in a temporary folder:
// the input written there, `vatbake bake --json` run, the three files read back, the
// folder removed. Errors are the command line's own, as objects: { code, kind,
// message, file } with its exit code.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const BIN = path.join(__dirname, '..', 'bin', 'vatbake.js');

/** Flags of `vatbake bake` from an options object: { zstdLevel: 19 } → --zstd-level 19,
 * { smallest: true } → --smallest; arrays repeat the flag. */
function flags(options) {
  const out = [];
  for (const [name, value] of Object.entries(options || {})) {
    if (value === undefined || value === null || value === false) continue;
    const flag = `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (value === true) out.push(flag);
    else for (const one of Array.isArray(value) ? value : [value]) out.push(flag, String(one));
  }
  return out;
}

/** An error of the bake: the command line's JSON error object, with its exit code. */
class BakeError extends Error {
  constructor(object, exitCode) {
    super(object.message);
    this.name = 'BakeError';
    this.code = object.code ?? exitCode;
    this.kind = object.kind;
    this.file = object.file ?? null;
  }
}

/**
 * Bakes a glTF binary (.glb bytes). `options.name` names the model (its files are
 * NAME.vat.json and so on; default "model"); every other option is a flag of
 * `vatbake bake`, camelCased. Returns { description (the parsed JSON), descriptionBytes,
 * texture, restMesh (Uint8Array), report (the --json summary) }.
 */
function bake(inputBytes, options = {}) {
  const { name = 'model', ...rest } = options;
  if (!/^[\w.-]+$/.test(name)) throw new TypeError(`options.name ${JSON.stringify(name)}: letters, digits, '.', '_' and '-' only`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-api-'));
  try {
    fs.writeFileSync(path.join(dir, `${name}.glb`), inputBytes);
    // In a child process (this package's bin): Node 20's WASI object, once collected
    // after a run with descriptors of its own, crashed the process that made it.
    const child = spawnSync(process.execPath, [BIN, 'bake', `${name}.glb`, '-o', 'out', '--json', '--quiet', ...flags(rest)], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    if (child.error) throw child.error;
    const code = child.status ?? 1;
    let report;
    try {
      report = JSON.parse(child.stdout);
    } catch {
      report = null;
    }
    if (code !== 0) {
      const object = report && report.error ? report.error : { message: child.stderr.trim() || `vatbake ended with ${child.signal || code}` };
      throw new BakeError(object, code);
    }
    const read = (file) => new Uint8Array(fs.readFileSync(path.join(dir, 'out', file)));
    const descriptionBytes = read(`${name}.vat.json`);
    return {
      description: JSON.parse(Buffer.from(descriptionBytes).toString('utf8')),
      descriptionBytes,
      texture: read(`${name}.vat.ktx2`),
      restMesh: read(`${name}.rest.glb`),
      report,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { bake, BakeError, flags };
