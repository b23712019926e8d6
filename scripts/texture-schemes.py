#!/usr/bin/env python3
"""Issue 16: bytes of one bake's texels under other storage schemes, measured with
Zstandard at the bake's default level (docs/PERFORMANCE.md, "Normals, key rows and a
coarser grid"). Reads a plain bake (`vatbake bake --delta none`), decodes its KTX2
with the `zstandard` module (an independent inflater), and recompresses variants.

Usage: python3 -m pip install numpy zstandard
       python3 scripts/texture-schemes.py OUT/NAME.vat.json [--level 5]
Prints one line per scheme: name, bytes, ratio to the default (second-order delta).
"""
import sys
import numpy as np
import zstandard

from bake_texels import clip_spans, load, predict

def key_rows(t, spans, every):
    """Every `every`-th row of a clip as is, the others minus the key row above them:
    a vertex shader decodes any row with two fetches."""
    out = t.astype(np.int64)
    for first, n in spans:
        for k in range(n):
            key = first + (k // every) * every
            if first + k != key:
                out[first + k] = t[first + k].astype(np.int64) - t[key]
    return (out % 65536).astype('<u2')

def size(a, level, threads=0):
    return len(zstandard.ZstdCompressor(level=level, threads=threads).compress(np.ascontiguousarray(a).tobytes()))

def main():
    path = sys.argv[1]
    level = int(sys.argv[sys.argv.index('--level') + 1]) if '--level' in sys.argv else 5
    d, t, _ = load(path)
    spans = clip_spans(d)
    s2 = predict(t, spans, 2)
    base = size(s2, level)
    rows = []
    add = lambda name, n: rows.append((name, n))
    add('plain', size(t, level))
    add('second (default)', base)
    add('second, positions only (RGB)', size(s2[..., :3], level))
    add('second, normals only (A)', size(s2[..., 3], level))
    # Normals none: alpha constant, the texture still RGBA16.
    nn = s2.copy(); nn[..., 3] = 0
    add('second, normals none (A = 0)', size(nn, level))
    # Normals separate: positions RGB (in an RGBA16 texture, A = 0) + normals in their own plane.
    mixed = s2.copy(); mixed[..., 3] = predict(t, spans, 1)[..., 3]
    add('mixed: RGB second, A row delta (one texture)', size(mixed, level))
    add('separate: RGB second + A plain', size(nn, level) + size(t[..., 3], level))
    add('separate: RGB second + A row delta', size(nn, level) + size(predict(t, spans, 1)[..., 3], level))
    # Smaller normal encodings: octahedral 6 + 6 and 5 + 5 bits (low bits of each byte zero).
    for bits in (6, 5):
        m = t.copy()
        mask = ((0xFF << (8 - bits)) & 0xFF)
        a = m[..., 3]
        m[..., 3] = ((a >> 8) & mask) << 8 | (a & mask)
        add(f'second, normals octahedral {bits}+{bits}', size(predict(m, spans, 2), level))
    for every in (4, 8, 16, 32):
        add(f'key rows every {every} + difference from key', size(key_rows(t, spans, every), level))
    for name, n in rows:
        print(f'{name}\t{n}\t{n / base:.3f}')

if __name__ == '__main__':
    main()
