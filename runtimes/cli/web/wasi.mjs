// A WASI preview 1 host with an in-memory file system, for vatbake.wasm where Node's
// WASI is not (a browser Worker): the 26 calls the module imports, over a Map of paths
// to files and folders. Not a general WASI: one preopened folder ("/"), no links, no
// permissions; stdout and stderr are collected as text.
const E = { SUCCESS: 0, BADF: 8, EXIST: 20, INVAL: 28, ISDIR: 31, NOENT: 44, NOSYS: 52, NOTDIR: 54, NOTEMPTY: 55 };
const FILETYPE = { CHAR: 2, DIR: 3, FILE: 4 };

class Exit {
  constructor(code) {
    this.code = code;
  }
}

function normalize(path) {
  const parts = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

const parent = (path) => normalize(`${path}/..`);

/** The file system: `files` maps absolute paths to Uint8Array (files) or null (folders). */
export class MemoryFs {
  constructor() {
    this.nodes = new Map([['/', { dir: true }]]);
  }
  mkdirp(path) {
    const p = normalize(path);
    if (p !== '/') this.mkdirp(parent(p));
    if (!this.nodes.has(p)) this.nodes.set(p, { dir: true });
  }
  writeFile(path, bytes) {
    const p = normalize(path);
    this.mkdirp(parent(p));
    this.nodes.set(p, { dir: false, data: new Uint8Array(bytes), size: bytes.length });
  }
  readFile(path) {
    const node = this.nodes.get(normalize(path));
    if (!node || node.dir) throw new Error(`${path}: no such file`);
    return node.data.slice(0, node.size);
  }
  list(path) {
    const p = normalize(path);
    const prefix = p === '/' ? '/' : `${p}/`;
    return [...this.nodes.keys()].filter((k) => k !== p && k.startsWith(prefix) && !k.slice(prefix.length).includes('/')).map((k) => k.slice(prefix.length)).sort();
  }
}

/**
 * Runs a WASI command module to its end: `args` (argv[0] included), `env` (an object),
 * `fs` a MemoryFs. Returns { code, stdout, stderr }.
 */
export function runWasi(module, { args, env = {}, fs, cwd = '/' }) {
  let memory;
  const view = () => new DataView(memory.buffer);
  const bytes = () => new Uint8Array(memory.buffer);
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const out = { 1: [], 2: [] };
  const fds = new Map([
    [0, { stdio: true }],
    [1, { stdio: true }],
    [2, { stdio: true }],
    [3, { path: '/', dir: true, preopen: true }],
  ]);
  let nextFd = 4;
  const str = (ptr, len) => decoder.decode(bytes().subarray(ptr, ptr + len));
  const resolve = (fd, ptr, len) => {
    const dir = fds.get(fd);
    if (!dir || !dir.dir) return null;
    return normalize(`${dir.path}/${str(ptr, len)}`);
  };
  const writeStrings = (list, ptrs, buf) => {
    const v = view();
    for (const s of list) {
      v.setUint32(ptrs, buf, true);
      ptrs += 4;
      const b = encoder.encode(`${s}\0`);
      bytes().set(b, buf);
      buf += b.length;
    }
    return E.SUCCESS;
  };
  const sizes = (list, countPtr, sizePtr) => {
    const v = view();
    v.setUint32(countPtr, list.length, true);
    v.setUint32(sizePtr, list.reduce((n, s) => n + encoder.encode(s).length + 1, 0), true);
    return E.SUCCESS;
  };
  const environ = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const filestat = (ptr, node) => {
    const v = view();
    for (let i = 0; i < 64; i += 8) v.setBigUint64(ptr + i, 0n, true);
    v.setBigUint64(ptr + 8, 1n, true);
    v.setUint8(ptr + 16, node.stdio ? FILETYPE.CHAR : node.dir ? FILETYPE.DIR : FILETYPE.FILE);
    v.setBigUint64(ptr + 24, 1n, true);
    v.setBigUint64(ptr + 32, BigInt(node.dir || node.stdio ? 0 : node.size), true);
    return E.SUCCESS;
  };
  const grow = (node, size) => {
    if (size <= node.data.length) return;
    const data = new Uint8Array(Math.max(size, node.data.length * 2, 4096));
    data.set(node.data.subarray(0, node.size));
    node.data = data;
  };
  const wasi = {
    args_get: (argv, buf) => writeStrings(args, argv, buf),
    args_sizes_get: (count, size) => sizes(args, count, size),
    environ_get: (environPtr, buf) => writeStrings(environ, environPtr, buf),
    environ_sizes_get: (count, size) => sizes(environ, count, size),
    clock_time_get: (_id, _precision, ptr) => {
      view().setBigUint64(ptr, BigInt(Math.round(performance.now() * 1e6)) + 1_700_000_000_000_000_000n, true);
      return E.SUCCESS;
    },
    random_get: (ptr, len) => {
      for (let at = 0; at < len; at += 65536) crypto.getRandomValues(bytes().subarray(ptr + at, ptr + Math.min(len, at + 65536)));
      return E.SUCCESS;
    },
    fd_close: (fd) => (fds.delete(fd) ? E.SUCCESS : E.BADF),
    fd_sync: () => E.SUCCESS,
    fd_fdstat_get: (fd, ptr) => {
      const f = fds.get(fd);
      if (!f) return E.BADF;
      const v = view();
      v.setUint8(ptr, f.stdio ? FILETYPE.CHAR : f.dir ? FILETYPE.DIR : FILETYPE.FILE);
      v.setUint16(ptr + 2, 0, true);
      v.setBigUint64(ptr + 8, 0xffffffffffffffffn, true);
      v.setBigUint64(ptr + 16, 0xffffffffffffffffn, true);
      return E.SUCCESS;
    },
    fd_filestat_get: (fd, ptr) => {
      const f = fds.get(fd);
      if (!f) return E.BADF;
      return filestat(ptr, f.stdio ? f : fs.nodes.get(f.path) || f);
    },
    fd_prestat_get: (fd, ptr) => {
      const f = fds.get(fd);
      if (!f || !f.preopen) return E.BADF;
      view().setUint8(ptr, 0);
      view().setUint32(ptr + 4, 1, true);
      return E.SUCCESS;
    },
    fd_prestat_dir_name: (fd, ptr) => {
      if (!fds.get(fd)?.preopen) return E.BADF;
      bytes()[ptr] = 47; // "/"
      return E.SUCCESS;
    },
    fd_read: (fd, iovs, count, nread) => {
      const f = fds.get(fd);
      if (!f) return E.BADF;
      if (f.stdio) {
        view().setUint32(nread, 0, true);
        return E.SUCCESS;
      }
      if (f.dir) return E.ISDIR;
      const node = fs.nodes.get(f.path);
      let total = 0;
      for (let i = 0; i < count; i++) {
        const v = view();
        const buf = v.getUint32(iovs + i * 8, true);
        const len = v.getUint32(iovs + i * 8 + 4, true);
        const n = Math.max(0, Math.min(len, node.size - f.pos));
        bytes().set(node.data.subarray(f.pos, f.pos + n), buf);
        f.pos += n;
        total += n;
        if (n < len) break;
      }
      view().setUint32(nread, total, true);
      return E.SUCCESS;
    },
    fd_write: (fd, iovs, count, nwritten) => {
      const f = fds.get(fd);
      if (!f) return E.BADF;
      let total = 0;
      for (let i = 0; i < count; i++) {
        const v = view();
        const buf = v.getUint32(iovs + i * 8, true);
        const len = v.getUint32(iovs + i * 8 + 4, true);
        const chunk = bytes().slice(buf, buf + len);
        if (f.stdio) {
          if (out[fd]) out[fd].push(chunk);
        } else {
          const node = fs.nodes.get(f.path);
          if (f.append) f.pos = node.size;
          grow(node, f.pos + len);
          node.data.set(chunk, f.pos);
          f.pos += len;
          node.size = Math.max(node.size, f.pos);
        }
        total += len;
      }
      view().setUint32(nwritten, total, true);
      return E.SUCCESS;
    },
    fd_seek: (fd, offset, whence, ptr) => {
      const f = fds.get(fd);
      if (!f || f.stdio || f.dir) return E.BADF;
      const size = fs.nodes.get(f.path).size;
      const base = whence === 0 ? 0 : whence === 1 ? f.pos : size;
      const pos = base + Number(offset);
      if (pos < 0) return E.INVAL;
      f.pos = pos;
      view().setBigUint64(ptr, BigInt(pos), true);
      return E.SUCCESS;
    },
    fd_readdir: (fd, buf, len, cookie, usedPtr) => {
      const f = fds.get(fd);
      if (!f || !f.dir) return E.BADF;
      const names = ['.', '..', ...fs.list(f.path)];
      let used = 0;
      for (let i = Number(cookie); i < names.length; i++) {
        const name = encoder.encode(names[i]);
        const node = fs.nodes.get(normalize(`${f.path}/${names[i]}`));
        const entry = new Uint8Array(24 + name.length);
        const v = new DataView(entry.buffer);
        v.setBigUint64(0, BigInt(i + 1), true);
        v.setBigUint64(8, BigInt(i + 1), true);
        v.setUint32(16, name.length, true);
        v.setUint8(20, !node || node.dir ? FILETYPE.DIR : FILETYPE.FILE);
        entry.set(name, 24);
        const n = Math.min(entry.length, len - used);
        bytes().set(entry.subarray(0, n), buf + used);
        used += n;
        if (used >= len) break;
      }
      view().setUint32(usedPtr, used, true);
      return E.SUCCESS;
    },
    path_open: (dirfd, _dirflags, ptr, len, oflags, _rb, _ri, fdflags, fdPtr) => {
      const path = resolve(dirfd, ptr, len);
      if (!path) return E.BADF;
      let node = fs.nodes.get(path);
      const [creat, directory, excl, trunc] = [oflags & 1, oflags & 2, oflags & 4, oflags & 8];
      if (node && creat && excl) return E.EXIST;
      if (!node) {
        if (!creat) return E.NOENT;
        const up = fs.nodes.get(parent(path));
        if (!up) return E.NOENT;
        if (!up.dir) return E.NOTDIR;
        node = { dir: false, data: new Uint8Array(0), size: 0 };
        fs.nodes.set(path, node);
      }
      if (directory && !node.dir) return E.NOTDIR;
      if (trunc && !node.dir) node.size = 0;
      const fd = nextFd++;
      fds.set(fd, { path, dir: node.dir, pos: 0, append: (fdflags & 1) !== 0 });
      view().setUint32(fdPtr, fd, true);
      return E.SUCCESS;
    },
    path_filestat_get: (dirfd, _flags, ptr, len, buf) => {
      const path = resolve(dirfd, ptr, len);
      if (!path) return E.BADF;
      const node = fs.nodes.get(path);
      return node ? filestat(buf, node) : E.NOENT;
    },
    path_readlink: () => E.INVAL,
    path_create_directory: (dirfd, ptr, len) => {
      const path = resolve(dirfd, ptr, len);
      if (!path) return E.BADF;
      if (fs.nodes.has(path)) return E.EXIST;
      if (!fs.nodes.get(parent(path))?.dir) return E.NOENT;
      fs.nodes.set(path, { dir: true });
      return E.SUCCESS;
    },
    path_remove_directory: (dirfd, ptr, len) => {
      const path = resolve(dirfd, ptr, len);
      const node = path && fs.nodes.get(path);
      if (!node) return E.NOENT;
      if (!node.dir) return E.NOTDIR;
      if (fs.list(path).length) return E.NOTEMPTY;
      fs.nodes.delete(path);
      return E.SUCCESS;
    },
    path_unlink_file: (dirfd, ptr, len) => {
      const path = resolve(dirfd, ptr, len);
      const node = path && fs.nodes.get(path);
      if (!node) return E.NOENT;
      if (node.dir) return E.ISDIR;
      fs.nodes.delete(path);
      return E.SUCCESS;
    },
    path_rename: (fd1, p1, l1, fd2, p2, l2) => {
      const [from, to] = [resolve(fd1, p1, l1), resolve(fd2, p2, l2)];
      const node = from && fs.nodes.get(from);
      if (!node) return E.NOENT;
      if (node.dir) return E.NOSYS;
      fs.nodes.set(to, node);
      fs.nodes.delete(from);
      for (const f of fds.values()) if (f.path === from) f.path = to;
      return E.SUCCESS;
    },
    poll_oneoff: (_in, _out, n, nevents) => {
      // Only clock subscriptions (sleeps) are ever made: they are taken as elapsed.
      const v = view();
      for (let i = 0; i < n; i++) {
        v.setBigUint64(_out + i * 32, v.getBigUint64(_in + i * 48, true), true);
        v.setUint16(_out + i * 32 + 8, 0, true);
        v.setUint8(_out + i * 32 + 10, 0);
      }
      v.setUint32(nevents, n, true);
      return E.SUCCESS;
    },
    sched_yield: () => E.SUCCESS,
    proc_exit: (code) => {
      throw new Exit(code);
    },
  };
  const instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: wasi });
  memory = instance.exports.memory;
  let code = 0;
  try {
    instance.exports._start();
  } catch (e) {
    if (e instanceof Exit) code = e.code;
    else throw e;
  }
  const text = (chunks) => decoder.decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  void cwd;
  return { code, stdout: text(out[1]), stderr: text(out[2]) };
}
