// A static file server on 127.0.0.1 (never another address) with a few mounts:
// URL prefix -> folder. Port 0: the OS picks a free one.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.json': 'application/json', '.glb': 'model/gltf-binary', '.gltf': 'model/gltf+json',
  '.bin': 'application/octet-stream', '.ktx2': 'image/ktx2', '.png': 'image/png', '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg', '.wasm': 'application/wasm',
};

/** mounts: [[urlPrefix, dir], …], longest prefix wins. Resolves to { url, close() }. */
export async function serve(mounts) {
  const sorted = [...mounts].sort((a, b) => b[0].length - a[0].length);
  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    const mount = sorted.find(([prefix]) => pathname.startsWith(prefix));
    if (!mount) return void res.writeHead(404).end(`no mount for ${pathname}`);
    const [prefix, dir] = mount;
    const root = path.resolve(dir);
    const file = path.resolve(root, '.' + path.posix.normalize('/' + pathname.slice(prefix.length)));
    if (file !== root && !file.startsWith(root + path.sep)) return void res.writeHead(403).end();
    fs.readFile(file, (error, data) => {
      if (error) return void res.writeHead(404).end(`not found: ${pathname}`);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(data);
    });
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}
