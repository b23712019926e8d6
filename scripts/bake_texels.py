"""A plain bake's texels for the measuring scripts (texture-layouts.py, texture-schemes.py):
the description, the texels decoded from its KTX2 with the `zstandard` module (a reader
independent of vatbake's own), each clip's rows, and the row differences `--delta` stores.
"""
import json, os, struct
import numpy as np
import zstandard


def load(desc_path):
    """(description, texels as a (height, width, 4) uint16 array, container bytes) of a
    one-layer bake written with `--delta none`."""
    d = json.load(open(desc_path))
    assert d['texture']['container'] == 'ktx2', 'a KTX2 bake'
    assert d['texture'].get('delta') is None, 'bake with --delta none'
    assert d['texture'].get('layers') is None, 'one layer'
    raw = open(os.path.join(os.path.dirname(desc_path), d['texture']['file']), 'rb').read()
    width, height = struct.unpack_from('<II', raw, 20)
    offset, length, full = struct.unpack_from('<QQQ', raw, 80)
    texels = zstandard.ZstdDecompressor().decompress(raw[offset:offset + length], max_output_size=full)
    t = np.frombuffer(texels, dtype='<u2').reshape(height, width, 4).copy()
    return d, t, len(raw) - length


def clip_spans(d):
    """(first texture row, rows) of every clip in every band."""
    rows, bands = d['rows'], d['texture']['bands']
    return [(b * rows + c['row'], c['rows']) for b in range(bands) for c in d['clips']]


def predict(t, spans, order):
    """order-th differences down each clip (mod 65536), as vatbake --delta stores them."""
    out = t.astype(np.int64)
    for j in range(order):  # pass j differences a clip's rows from its row j + 1 on
        prev = out.copy()
        for first, n in spans:
            out[first + j + 1:first + n] = prev[first + j + 1:first + n] - prev[first + j:first + n - 1]
    return (out % 65536).astype(np.uint16)
