#!/usr/bin/env python3
"""Issue 29: what the "planes" layout would weigh with a reference-column predictor
and at other Zstandard levels (the measurement that led to "planes-ref", which keeps one
table per bake) (docs/PERFORMANCE.md, "Byte layouts, measured":
"Past the shipped layout").

"planes" predicts each second-order residual from the one in the column to its
left. Here each column, per block of 4 MiB of texels, may instead name any of the K
columns before it (or none) as its reference: the one whose residuals differ least from
its own (sum of |signed difference| over the block's rows, RGB apart from the normals'
bytes). The choice costs one byte per column per block (two with the normals), counted in
the figures two ways: stored as it is (`side-raw`) and compressed by Zstandard at the
same level (`side-zstd`: the least it could cost; the KTX2 level has no room for it, so
where a bake would keep it is open). The rest is "planes": zigzag, the normals'
two bytes each under a row delta, eight byte planes per block, Zstandard as the bake's
writer runs it, and the bake's KTX2 container.

With `--backward DECAY` the references are chosen without a side table, row by row from
the rows above (`backward_refs`), as a decoder could repeat it.

Usage: python3 scripts/texture-refcols.py PLAIN/NAME.vat.json --png16 BYTES [--k 1,16] [--levels 5,9] [--backward DECAY]
PLAIN is a `vatbake bake MODEL --delta none` folder; BYTES the same-order PNG16 of
"Texture size: honest baselines". Prints one JSON object: bytes and ratio per (K, level,
side table), and the compression time of the K = first layout (ms, one thread, median
of 3) per level.
"""
import importlib.util, json, os, sys, time
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bake_texels import clip_spans, load, predict

spec = importlib.util.spec_from_file_location('layouts', os.path.join(os.path.dirname(__file__), 'texture-layouts.py'))
layouts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(layouts)


def choose_refs(x, k_max, modulus):
    """x: (rows, W, C) signed residuals (int64). Per column, the reference 0..k_max
    (0: none, k: the column k to the left) whose difference has the least sum of |.|;
    returns (refs, predicted residuals modulo `modulus`)."""
    half = modulus // 2
    wrap = lambda v: ((v + half) % modulus) - half
    h, w, _ = x.shape
    best = np.abs(x).sum(axis=(0, 2))
    refs = np.zeros(w, dtype=np.int64)
    for k in range(1, k_max + 1):
        if k >= w:
            break
        cost = np.full(w, np.iinfo(np.int64).max)
        cost[k:] = np.abs(wrap(x[:, k:] - x[:, :-k])).sum(axis=(0, 2))
        better = cost < best
        best = np.where(better, cost, best)
        refs = np.where(better, k, refs)
    out = x.copy()
    cols = np.arange(w)
    src = np.where(refs > 0, cols - refs, cols)
    out = np.where((refs > 0)[None, :, None], wrap(x - x[:, src]), x)
    return refs, out % modulus


def backward_refs(x, k_max, modulus, decay):
    """The choice without a side table: each row's references chosen from the rows above
    it in the block (costs as in `choose_refs`, on row y - 1, the earlier rows' weighed
    by `decay` each row up), which a decoder has already undone; row 0 takes the left
    neighbour. Returns the predicted residuals modulo `modulus`."""
    half = modulus // 2
    wrap = lambda v: ((v + half) % modulus) - half
    h, w, _ = x.shape
    out, acc, cols = x.copy(), None, np.arange(w)
    for y in range(h):
        if y == 0:
            refs = np.minimum(cols, 1)
        else:
            prev = x[y - 1]
            costs = [np.abs(prev).sum(axis=1)]
            for k in range(1, k_max + 1):
                ck = np.full(w, 1 << 40, dtype=np.int64)
                if k < w:
                    ck[k:] = np.abs(wrap(prev[k:] - prev[:-k])).sum(axis=1)
                costs.append(ck)
            costs = np.stack(costs)
            acc = costs if acc is None else (acc * decay).astype(np.int64) + costs
            refs = np.argmin(acc, axis=0)
        src = np.where(refs > 0, cols - refs, cols)
        out[y] = np.where((refs > 0)[:, None], wrap(x[y] - x[y][src]), x[y])
    return out % modulus


def to_signed16(u):
    return u.astype(np.int16).astype(np.int64)


def normal_bytes(t, spans):
    """The alpha channel's two octahedral bytes, each under a first-order row delta mod 256,
    as signed values (rows, W, 2)."""
    a = t[..., 3]
    planes = []
    for plane in ((a >> 8).astype(np.int64), (a & 0xFF).astype(np.int64)):
        x = plane.copy()
        for first, n in spans:
            x[first + 1:first + n] = plane[first + 1:first + n] - plane[first:first + n - 1]
        planes.append(((x + 128) % 256) - 128)
    return np.stack(planes, axis=-1)


def zig16(v):
    s = v.astype(np.int64)
    s = ((s + 32768) % 65536) - 32768
    return (((s << 1) ^ (s >> 15)) & 0xFFFF).astype(np.uint16)


def zig8(v):
    s = ((v.astype(np.int64) + 128) % 256) - 128
    return (((s << 1) ^ (s >> 7)) & 0xFF).astype(np.uint16)


def block_bytes(t, spans, k, backward=None):
    """The layout's bytes over the whole image, block by block (4 MiB of texels each), and
    the side table (each block's references, one byte a column for RGB, one for the
    normals' bytes; empty for K = 1)."""
    h, w, _ = t.shape
    rgb = to_signed16(predict(t, spans, 2)[..., :3])
    nrm = normal_bytes(t, spans)
    rows = max(1, (4 << 20) // (w * 8))
    out, side = [], []
    for y in range(0, h, rows):
        r, n = rgb[y:y + rows], nrm[y:y + rows]
        if k == 1:  # "planes": the left neighbour for RGB, nothing for the normals
            pr = r.copy()
            pr[:, 1:] = r[:, 1:] - r[:, :-1]
            pn = n
        elif backward is not None:
            pr, pn = backward_refs(r, k, 65536, backward), backward_refs(n, k, 256, backward)
        else:
            rr, pr = choose_refs(r, k, 65536)
            rn, pn = choose_refs(n, k, 256)
            side.append(rr.astype(np.uint8).tobytes() + rn.astype(np.uint8).tobytes())
        planes = [zig16(pr[..., c]) for c in range(3)]
        b = b''.join((p >> 8).astype(np.uint8).tobytes() + (p & 0xFF).astype(np.uint8).tobytes() for p in planes)
        hi, lo = zig8(pn[..., 0]), zig8(pn[..., 1])
        b += hi.astype(np.uint8).tobytes() + lo.astype(np.uint8).tobytes()
        out.append(b)
    return b''.join(out), b''.join(side)


def main():
    path = sys.argv[1]
    arg = lambda name, default: sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default
    png = int(arg('--png16', '0'))
    ks = [int(v) for v in arg('--k', '1,16').split(',')]
    levels = [int(v) for v in arg('--levels', '5,9').split(',')]
    backward = float(arg('--backward', '-1'))
    d, t, container = load(path)
    spans = clip_spans(d)
    result = {'model': d.get('source', {}).get('file', path), 'png16': png, 'cells': {}, 'ms': {}}
    for k in ks:
        data, side = block_bytes(t, spans, k, backward if backward >= 0 else None)
        for level in levels:
            body = layouts.zstd_bytes(data, level) + container
            # The side table stored as it is, and (the least it could cost) compressed.
            for name, table in (('raw', len(side)), ('zstd', layouts.zstd_bytes(side, level) if side else 0)):
                n = body + table
                key = f'k{k}/L{level}' + ('' if k == 1 else f'/side-{name}')
                result['cells'][key] = {'bytes': n, 'ratio': round(n / png, 4) if png else None}
                if k == 1:
                    break
            if k == ks[0]:
                times = []
                for _ in range(3):
                    s = time.perf_counter()
                    layouts.zstd_bytes(data, level)
                    times.append((time.perf_counter() - s) * 1000)
                result['ms'][f'L{level}'] = round(sorted(times)[1], 2)
    print(json.dumps(result))


if __name__ == '__main__':
    main()
