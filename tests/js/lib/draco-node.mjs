// three.js's DRACOLoader, in node, decoding with Google's decoder from the `draco3d`
// npm package.
//
// DRACOLoader is written for browsers: it fetches the decoder files with FileLoader,
// glues them to its own worker code (DRACOWorker, which turns the decoded mesh into
// typed arrays: point order, attribute types and indices) in a Blob URL, and runs
// that in Web Workers. Node has Blob URLs but no Web Worker and cannot fetch files.
// Two small substitutions keep everything else DRACOLoader's own:
//   - `_loadLibrary` reads draco3d's decoder (draco_decoder_nodejs.js and
//     draco_decoder.wasm) from node_modules instead of fetching three's copy;
//   - `Worker` (undefined in node) is a stand-in that evaluates the Blob's script
//     (decoder + DRACOWorker) in this thread and passes the same messages both ways.
// So GLTFLoader → DRACOLoader → DRACOWorker → draco3d runs as in a browser, one
// thread instead of a pool.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { resolveObjectURL } from 'node:buffer';
import { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js';

const require = createRequire(import.meta.url);
const draco3dDir = require.resolve('draco3d/package.json').replace(/package\.json$/, '');
const DECODER_JS = `${draco3dDir}draco_decoder_nodejs.js`;
const DECODER_WASM = `${draco3dDir}draco_decoder.wasm`;

/** Runs a DRACOLoader worker script (a Blob URL) in this thread. */
class InThreadWorker {
  constructor(url) {
    this.onmessage = null;
    const scope = Object.create(globalThis);
    // The worker replies with self.postMessage; deliver asynchronously, like a worker.
    scope.postMessage = (data) => queueMicrotask(() => this.onmessage?.({ data }));
    this.ready = resolveObjectURL(url)
      .text()
      .then((source) => {
        // `var onmessage` keeps the worker's handler local; exports/module/define are
        // undefined so the decoder script only defines DracoDecoderModule; it sees the
        // node globals it expects (it gets the wasm bytes from DRACOLoader's config).
        const run = new Function(
          'self', 'require', '__filename', '__dirname', 'exports', 'module', 'define',
          `var onmessage;\n${source}\nreturn onmessage;`,
        );
        this.handler = run(scope, require, DECODER_JS, draco3dDir, undefined, undefined, undefined);
      });
    this.queue = this.ready;
  }

  postMessage(data) {
    // In order: 'init' before the first 'decode'.
    this.queue = this.queue.then(() => this.handler({ data }));
  }

  terminate() {}
}

class NodeDRACOLoader extends DRACOLoader {
  _loadLibrary(url, responseType) {
    const file = responseType === 'arraybuffer' ? DECODER_WASM : DECODER_JS;
    const bytes = fs.readFileSync(file);
    return Promise.resolve(
      responseType === 'arraybuffer'
        ? bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
        : bytes.toString('utf8'),
    );
  }
}

let shared = null;

/**
 * One DRACOLoader for every GLTFLoader of the process (its decoder is loaded once).
 * Node has no global Worker; DRACOLoader constructs `new Worker(url)` later, inside a
 * promise, so the stand-in is installed for the process rather than around the call.
 */
export function dracoLoader() {
  if (!shared) {
    if (typeof globalThis.Worker === 'undefined') globalThis.Worker = InThreadWorker;
    shared = new NodeDRACOLoader().setWorkerLimit(1);
  }
  return shared;
}
