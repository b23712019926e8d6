#!/usr/bin/env python3
"""Issue 29: honest baselines for a bake's texture, and byte layouts a player can undo
on load, measured on the same texels (docs/PERFORMANCE.md, "Texture size: honest
baselines" and "Byte layouts").

Reads a plain bake (`vatbake bake --delta none`, the default spatial column order),
decodes its KTX2 with the `zstandard` module (an independent inflater), and measures
on exactly those texels, in that column order:

- png16: a 16-bit RGBA PNG of them written as a strong encoder writes it: CPython's
  zlib (the reference zlib) at level 9, memLevel 8 and 9, and every filter choice
  tried (each of the five filters on every row, and libpng's per-row heuristic, the
  minimum sum of absolute differences); the smallest file is the figure. The bytes
  are a whole PNG: signature, IHDR, one IDAT, IEND.
- zstd19: `zstd -19 --long` (the CLI) of the raw texels, little-endian RGBA16.
- xz9e: `xz -9e` (the CLI) of the same bytes.
- layouts: the texels under a row prediction (second-order delta within each clip,
  as `--delta second` stores them, and others), a mapping of the signed residuals
  (as they are, modulo 65536, or zigzagged) and an arrangement of their bytes
  (interleaved as now; high and low bytes in separate planes; per-channel planes;
  both), compressed with the `zstandard` module the way the bake's KTX2 writer
  compresses (multithreaded mode with one worker, checksum and content size), at
  the levels asked for (at level 5 the default layout's bytes are the bake's, to the
  byte). Bytes are whole files: the Zstandard frame plus the bake's KTX2 container
  (248 bytes), the same for every layout.

Usage: python3 -m pip install numpy zstandard
       python3 scripts/texture-layouts.py OUT/NAME.vat.json [--levels 5] [--slow 19] [--layouts all|short|default|none]
Prints one JSON object: the baselines, and each layout's bytes per level (`--slow`
levels on the short list of layouts only).
       python3 scripts/texture-layouts.py --table RESULTS.jsonl... [--fixtures N]
Prints docs/PERFORMANCE.md's tables (markdown) from scripts/bench-texture-size.sh's
output: medians over the first N models (the bundled fixtures; default 8).
"""
import json, os, struct, subprocess, sys, zlib
import numpy as np
import zstandard

from bake_texels import clip_spans, load, predict


# ---------------------------------------------------------------- PNG16, strong encoder

def png_filters(img):
    """The five PNG filters of every row at once: img is (H, W*8) big-endian bytes, bpp 8."""
    x = img.astype(np.int16)
    bpp = 8
    a = np.zeros_like(x); a[:, bpp:] = x[:, :-bpp]
    b = np.zeros_like(x); b[1:] = x[:-1]
    c = np.zeros_like(x); c[1:, bpp:] = x[:-1, :-bpp]
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
    out = [x, x - a, x - b, x - ((a + b) >> 1), x - paeth]
    return [(f & 0xFF).astype(np.uint8) for f in out]


def png16_bytes(t):
    """Smallest whole-PNG size over the filter choices and zlib settings; and the choice."""
    h, w, _ = t.shape
    img = t.astype('>u2').view(np.uint8).reshape(h, w * 8)
    filtered = png_filters(img)
    # libpng's heuristic: per row, the filter with the least sum of |byte as signed|.
    cost = np.stack([np.abs(f.astype(np.int8).astype(np.int32)).sum(axis=1) for f in filtered])
    pick = cost.argmin(axis=0)
    choices = {f'filter {i} every row': np.full(h, i) for i in range(5)}
    choices['per-row minimum sum of absolute differences'] = pick
    best = None
    for name, per_row in choices.items():
        stream = np.concatenate([per_row.astype(np.uint8)[:, None],
                                 np.take_along_axis(np.stack(filtered), per_row[None, :, None], 0)[0]], axis=1)
        data = stream.tobytes()
        for mem in (8, 9):
            z = zlib.compressobj(9, zlib.DEFLATED, 15, mem)
            n = len(z.compress(data) + z.flush())
            size = 8 + 25 + 12 + n + 12  # signature, IHDR, IDAT around the zlib stream, IEND
            if best is None or size < best[0]:
                best = (size, f'{name}, zlib 9, memLevel {mem}')
    return best


def cli_bytes(data, args):
    return len(subprocess.run(args, input=data, stdout=subprocess.PIPE, check=True).stdout)


# ---------------------------------------------------------------- layouts

def predict_best_per_clip(t, spans):
    """Per clip and channel, the order (0, 1 or 2) whose residuals have the least sum of
    |signed value|: the choice a writer would record per clip and channel."""
    res = [predict(t, spans, k) for k in range(3)]
    out = res[2].copy()
    for first, n in spans:
        for ch in range(4):
            costs = [np.abs(r[first:first + n, :, ch].astype(np.int16).astype(np.int64)).sum() for r in res]
            out[first:first + n, :, ch] = res[int(np.argmin(costs))][first:first + n, :, ch]
    return out


def horizontal(r):
    """The residuals minus their left neighbour's (column order is spatial), mod 65536."""
    out = r.astype(np.int64)
    out[:, 1:] -= r[:, :-1].astype(np.int64)
    return (out % 65536).astype(np.uint16)


def zigzag(r):
    s = r.astype(np.int16).astype(np.int32)
    return (((s << 1) ^ (s >> 15)) & 0xFFFF).astype(np.uint16)


def byte_normals(t, spans, order, zig):
    """The alpha channel's two octahedral bytes (x high, y low), each predicted on its
    own: order-th differences down each clip modulo 256, zigzagged when asked."""
    a = t[..., 3]
    out = []
    for plane in ((a >> 8).astype(np.int64), (a & 0xFF).astype(np.int64)):
        x = plane
        for j in range(order):
            prev = x.copy()
            for first, n in spans:
                x[first + j + 1:first + n] = prev[first + j + 1:first + n] - prev[first + j:first + n - 1]
        x = x % 256
        if zig:
            s = x.astype(np.uint8).astype(np.int8).astype(np.int32)
            x = ((s << 1) ^ (s >> 7)) & 0xFF
        out.append(x.astype(np.uint16))
    return (out[0] << 8) | out[1]


def residual(t, spans, prediction, mapping, normals):
    """The residual image (H, W, 4) u16: RGB (and A, with normals 'u16') under the
    prediction and mapping; with normals 'bytes, row delta', A holds the two
    octahedral bytes, each under a first-order delta modulo 256."""
    r = PREDICTIONS[prediction](t, spans)
    if mapping == 'zigzag':
        r = zigzag(r)
    if normals == 'bytes, row delta':
        r = r.copy()
        r[..., 3] = byte_normals(t, spans, 1, mapping == 'zigzag')
    return r


def arrange(r, how, spans):
    """The residual image r (H, W, 4) u16 as the bytes the compressor sees."""
    h, w, _ = r.shape
    if how == 'interleaved':
        return r.astype('<u2').tobytes()

    def block(b):  # b: (rows, W, 4) -> bytes in the arrangement, over this block
        if how.startswith('bytes'):  # all high bytes of the block, then all low bytes
            return (b >> 8).astype(np.uint8).tobytes() + (b & 0xFF).astype(np.uint8).tobytes()
        if how.startswith('channels+bytes'):  # per channel: its high bytes, then its low bytes
            return b''.join((b[..., c] >> 8).astype(np.uint8).tobytes() + (b[..., c] & 0xFF).astype(np.uint8).tobytes()
                            for c in range(4))
        if how.startswith('channels'):  # per channel: its u16 values
            return b''.join(b[..., c].astype('<u2').tobytes() for c in range(4))
        raise ValueError(how)

    scope = how.split('/')[1]
    if scope == 'row':
        return b''.join(block(r[y:y + 1]) for y in range(h))
    if scope.startswith('rows') or scope == '4MiB':  # blocks of K rows from the top, the last one shorter
        # 4MiB: as many rows as 4 MiB of texels hold (the "planes" layout the bake writes)
        k = int(scope[4:]) if scope.startswith('rows') else max(1, (4 << 20) // (w * 8))
        return b''.join(block(r[y:y + k]) for y in range(0, h, k))
    if scope == 'clip':
        return b''.join(block(r[first:first + n]) for first, n in sorted(spans))
    if scope == 'image':
        return block(r)
    raise ValueError(how)


def zstd_bytes(data, level):
    c = zstandard.ZstdCompressor(level=level, threads=1, write_checksum=True, write_content_size=True)
    return len(c.compress(data))


PREDICTIONS = {
    'none': lambda t, s: predict(t, s, 0),
    'row': lambda t, s: predict(t, s, 1),
    'second': lambda t, s: predict(t, s, 2),
    'best order per clip and channel': predict_best_per_clip,
    'row + left neighbour': lambda t, s: horizontal(predict(t, s, 1)),
    'second + left neighbour': lambda t, s: horizontal(predict(t, s, 2)),
}
ARRANGEMENTS = ['interleaved', 'bytes/row', 'channels/row', 'channels+bytes/row',
                'bytes/clip', 'channels/clip', 'channels+bytes/clip',
                'bytes/image', 'channels/image', 'channels+bytes/image']
# The layouts measured, (prediction, residuals, normals, arrangement): the second-order
# delta (the default) under every mapping and arrangement; the other predictions under
# the arrangements that did best on it; the normals' two bytes apart, with blocks of rows.
OTHERS = [('as is', 'interleaved'), ('zigzag', 'interleaved'), ('as is', 'channels/image'),
          ('zigzag', 'channels/image'), ('zigzag', 'channels+bytes/image')]
BYTE_NORMALS = ['interleaved', 'channels+bytes/row', 'channels+bytes/rows16', 'channels+bytes/rows64',
                'channels+bytes/clip', 'channels+bytes/image', 'channels+bytes/4MiB']


# The layouts measured at the slow levels too (`--slow`).
SHORT = [('second', 'as is', 'u16', 'interleaved'), ('second', 'zigzag', 'u16', 'channels/image'),
         ('second', 'zigzag', 'u16', 'channels+bytes/image'),
         ('second + left neighbour', 'zigzag', 'u16', 'channels+bytes/image'),
         ('second + left neighbour', 'zigzag', 'bytes, row delta', 'channels+bytes/rows16'),
         ('second + left neighbour', 'zigzag', 'bytes, row delta', 'channels+bytes/image')]


def layouts(which):
    if which == 'none':
        return []
    if which == 'short':
        return SHORT
    if which == 'default':
        return [('second', 'as is', 'u16', 'interleaved')]
    out = [('second', m, 'u16', a) for m in ('as is', 'zigzag') for a in ARRANGEMENTS]
    out += [(p, m, 'u16', a) for p in PREDICTIONS if p != 'second' for m, a in OTHERS]
    out += [(p, 'zigzag', 'bytes, row delta', a) for p in ('second', 'second + left neighbour') for a in BYTE_NORMALS]
    return out


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def short(model):
    return os.path.basename(model)


def label(model):
    """A fixture by its path under fixtures/; any other model (a generated one) by its name."""
    return model if not os.path.isabs(model) and not model.startswith('target/') else f'generated: {short(model)}'


def tables(paths, fixtures):
    rows = [json.loads(line) for p in paths for line in open(p) if line.strip()]
    print('| model | raw | KTX2 default | its references (description) | PNG16 same order | vatbake\'s PNG16 '
          '| `zstd -19 --long` | `xz -9e` | default / PNG16 | zstd / PNG16 | xz / PNG16 | default / xz |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    ratios = []
    for r in rows:
        refs = r.get('references', 0)  # the "planes-ref" table, counted with the texture
        whole = r['default'] + refs
        q = (whole / r['png16'], r['zstd19'] / r['png16'], r['xz9e'] / r['png16'], whole / r['xz9e'])
        ratios.append(q)
        print(f"| {label(r['model'])} | {r['raw']:,} | {r['default']:,} | {refs:,} | {r['png16']:,} | "
              f"{r['vatbake_png']:,} | {r['zstd19']:,} | {r['xz9e']:,} | " + ' | '.join(f'{x:.2f}×' for x in q) + ' |')
    for name, part in ((f'median, the {fixtures} fixtures', ratios[:fixtures]), ('median, all', ratios)):
        if part:
            print(f'| **{name}** | | | | | | | | ' + ' | '.join(f'**{median([q[i] for q in part]):.2f}×**' for i in range(4)) + ' |')
    print()
    print('PNG16 encoder choice per model: ' + '; '.join(f"{short(r['model'])}: {r['png16_how']}" for r in rows))
    levels = sorted({lv for r in rows for cell in r.get('layouts', {}).values() for lv in cell}, key=int)
    for level in levels:
        names = [k for k in rows[0].get('layouts', {}) if all(level in r['layouts'].get(k, {}) for r in rows)]
        print()
        print(f'Level {level}: whole-file bytes / PNG16 same order:')
        print()
        print('| prediction | residuals | normals | arrangement | ' + ' | '.join(short(r['model']) for r in rows) +
              f' | median ({fixtures} fixtures) | worst ({fixtures} fixtures) |')
        print('|---|---|---|---|' + '---:|' * (len(rows) + 2))
        lines = []
        for k in names:
            q = [r['layouts'][k][level] / r['png16'] for r in rows]
            lines.append((median(q[:fixtures]), k, q))
        for med, k, q in sorted(lines):
            print('| ' + ' | '.join(k.split(' | ')) + ' | ' + ' | '.join(f'{x:.2f}' for x in q) +
                  f' | **{med:.3f}** | {max(q[:fixtures]):.2f} |')


def main():
    if sys.argv[1] == '--table':
        fixtures = int(sys.argv[sys.argv.index('--fixtures') + 1]) if '--fixtures' in sys.argv else 8
        paths = [a for a in sys.argv[2:] if a.endswith('.jsonl') or os.path.isfile(a)]
        paths = [a for a in paths if not a.isdigit()]
        return tables(paths, fixtures)
    path = sys.argv[1]
    arg = lambda name, default: sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default
    levels = [int(v) for v in arg('--levels', '5').split(',')]
    slow = [int(v) for v in arg('--slow', '19').split(',') if v]
    which = arg('--layouts', 'all')
    d, t, container = load(path)
    spans = clip_spans(d)
    raw = t.astype('<u2').tobytes()
    result = {'model': d.get('source', {}).get('file', path) if isinstance(d.get('source'), dict) else path,
              'width': int(t.shape[1]), 'height': int(t.shape[0]), 'raw': len(raw)}
    if '--no-baselines' not in sys.argv:
        png, how = png16_bytes(t)
        result['png16'] = png
        result['png16_how'] = how
        result['zstd19'] = cli_bytes(raw, ['zstd', '-19', '--long', '-q', '-c', '-T1'])
        result['xz9e'] = cli_bytes(raw, ['xz', '-9e', '-c', '-T1'])
    cells = {}
    cache = {}
    for p, m, n, a in layouts(which):
        if (p, m, n) not in cache:
            cache[(p, m, n)] = residual(t, spans, p, m, n)
        data = arrange(cache[(p, m, n)], a, spans)
        # Whole files: the KTX2 container around the Zstandard frame is the bake's.
        at = levels + (slow if (p, m, n, a) in SHORT else [])
        cells[f'{p} | {m} | {n} | {a}'] = {str(level): zstd_bytes(data, level) + container for level in at}
    result['layouts'] = cells
    print(json.dumps(result))


if __name__ == '__main__':
    main()
