// Run the vatbake binary. Its location: $VATBAKE_BIN, else <repo>/target/debug/vatbake.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const FIXTURES = path.join(REPO, 'fixtures');

/** The eight bundled characters (fixtures/README.md), as paths under FIXTURES. */
export const BUNDLED = [
  'Fox/Fox.glb',
  'CesiumMan/glTF-Binary/CesiumMan.glb',
  'Kenney-MiniCharacters/character-female-a.glb',
  'Kenney-PlatformerCharacter/character.glb',
  'MorphStressTest/MorphStressTest.gltf',
  'RiggedSimple/rigged-simple.gltf',
  'SimpleSkin/SimpleSkin.gltf',
  'AnimatedMorphCube/AnimatedMorphCube.gltf',
];

export function vatbakeBin() {
  return process.env.VATBAKE_BIN || path.join(REPO, 'target', 'debug', process.platform === 'win32' ? 'vatbake.exe' : 'vatbake');
}

/**
 * `vatbake bake <model> -o <fresh tmp dir> --points all [extra]`. Throws (so the tests
 * FAIL, never skip) when the binary is missing, exits non-zero, or leaves out a file.
 * Returns the path of the description plus the run's stdout/stderr.
 */
export function bake(model, extraArgs = []) {
  const bin = vatbakeBin();
  if (!fs.existsSync(bin)) {
    throw new Error(`vatbake binary not found at ${bin}: build it first (cargo build -p vatbake) or set VATBAKE_BIN`);
  }
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-js-'));
  bakeFolders.add(out);
  return runBake(bin, model, out, extraArgs);
}

// Every bake's folder goes when the test file's process ends (node --test runs each file
// in its own), passed or failed, unless VATBAKE_JS_KEEP is set.
const bakeFolders = new Set();
process.on('exit', () => {
  if (process.env.VATBAKE_JS_KEEP) return;
  for (const out of bakeFolders) fs.rmSync(out, { recursive: true, force: true });
});

function runBake(bin, model, out, extraArgs) {
  const args = ['bake', model, '-o', out, '--points', 'all', ...extraArgs];
  const run = spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  const cmd = `${bin} ${args.join(' ')}`;
  if (run.error) throw new Error(`could not run ${cmd}: ${run.error.message}`);
  if (run.status !== 0) {
    throw new Error(`${cmd} exited with ${run.status ?? run.signal}\n${run.stderr}${run.stdout}`);
  }
  const nameAt = extraArgs.indexOf('--name');
  const stem = nameAt >= 0 ? extraArgs[nameAt + 1] : path.basename(model).replace(/\.[^.]+$/, '');
  const description = path.join(out, `${stem}.vat.json`);
  for (const f of [description, path.join(out, `${stem}.vat.ktx2`), path.join(out, `${stem}.rest.glb`)]) {
    if (!fs.existsSync(f)) {
      throw new Error(`${cmd} exited 0 but did not write ${path.basename(f)} (dir has: ${fs.readdirSync(out).join(', ') || 'nothing'})\n${run.stderr}`);
    }
  }
  return { out, description, stdout: run.stdout, stderr: run.stderr, cmd };
}
