// The page's bake, off the main thread: vatbake.wasm (the command line) over the
// in-memory WASI of wasi.mjs. A message { wasmUrl, name, bytes, args } is answered by
// exactly one message: { report, stderr, files } or { error: { code, kind, message,
// file }, stderr }, also when the module traps (code 101, kind "internal").
import { MemoryFs, runWasi } from './wasi.mjs';

let compiled;

self.onmessage = async ({ data }) => {
  try {
    compiled ??= await WebAssembly.compile(await (await fetch(data.wasmUrl)).arrayBuffer());
    const fs = new MemoryFs();
    fs.mkdirp('/tmp');
    const name = String(data.name).replace(/[^\w.-]+/g, '_') || 'model.glb';
    fs.writeFile(`/in/${name}`, new Uint8Array(data.bytes));
    const run = runWasi(compiled, {
      args: ['vatbake', 'bake', `/in/${name}`, '-o', '/out', '--json', ...(data.args ?? [])],
      env: { VATBAKE_WASI_CWD: '/', NO_COLOR: '1' },
      fs,
    });
    let report = null;
    try {
      report = JSON.parse(run.stdout);
    } catch {
      report = null;
    }
    if (run.code !== 0) {
      self.postMessage({ error: report?.error ?? { code: run.code, kind: 'internal', message: run.stderr.trim(), file: null }, stderr: run.stderr });
      return;
    }
    const files = Object.fromEntries(fs.list('/out').map((f) => [f, fs.readFile(`/out/${f}`)]));
    self.postMessage({ report, stderr: run.stderr, files }, Object.values(files).map((b) => b.buffer));
  } catch (e) {
    self.postMessage({ error: { code: 101, kind: 'internal', message: `the bake stopped: ${e && e.message}`, file: null }, stderr: '' });
  }
};
