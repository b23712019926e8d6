#!/usr/bin/env python3
"""Issue 29, "rows chosen by error, per clip": how few rows each clip needs for the
runtime's linear interpolation between rows to stay within a tolerance of the pose
sampled at 60 Hz, over every point (positions only; normals not counted). A measurement
for `--fps auto`, which is not built.

Reads a bake made with `vatbake bake MODEL --fps 60 --delta none` (the 60 Hz reference),
decodes its KTX2 with the `zstandard` module, and for each clip and each step k (keep
every k-th 60 Hz row, and the last) interpolates the dropped rows linearly from the kept
ones and takes the worst distance from the reference, in model units, over every point
and dropped row. A clip's rows at tolerance T are the fewest kept rows whose worst
distance is within T × the bounds' diagonal.

Usage: python3 scripts/rows-by-error.py OUT/NAME.vat.json [--tolerances 1e-3,5e-3,1e-2]
Prints one JSON object: per clip its 60 Hz rows and, per tolerance, the rows kept.
"""
import json, os, struct, sys
import numpy as np
import zstandard


def load(path):
    d = json.load(open(path))
    t = d['texture']
    assert t['container'] == 'ktx2' and t.get('delta') is None and t.get('layers') is None and t['bands'] == 1
    raw = open(os.path.join(os.path.dirname(path), t['file']), 'rb').read()
    width, height = struct.unpack_from('<II', raw, 20)
    offset, length, full = struct.unpack_from('<QQQ', raw, 80)
    texels = zstandard.ZstdDecompressor().decompress(raw[offset:offset + length], max_output_size=full)
    texels = np.frombuffer(texels, dtype='<u2').reshape(height, width, 4)
    p = d['positions']
    scale = np.array(p['half_extent']) * 2 / 65535
    return d, texels[..., :3].astype(np.float64) * scale, float(np.linalg.norm(np.array(p['half_extent']) * 2))


def worst(rows, k):
    """Worst distance of the dropped rows from the lerp of every k-th row (and the last)."""
    n = len(rows)
    kept = sorted(set(range(0, n, k)) | {n - 1})
    err = 0.0
    for a, b in zip(kept, kept[1:]):
        for i in range(a + 1, b):
            w = (i - a) / (b - a)
            lerp = rows[a] * (1 - w) + rows[b] * w
            err = max(err, float(np.sqrt(((lerp - rows[i]) ** 2).sum(axis=-1)).max()))
    return err, len(kept)


def main():
    path = sys.argv[1]
    tols = [float(v) for v in (sys.argv[sys.argv.index('--tolerances') + 1] if '--tolerances' in sys.argv else '1e-3,5e-3,1e-2').split(',')]
    d, pos, diagonal = load(path)
    width = pos.shape[1]
    out = {'file': path, 'points': d['points'], 'width': width, 'diagonal': diagonal, 'clips': []}
    for c in d['clips']:
        rows = pos[c['row']:c['row'] + c['rows']]
        steps = {}
        for k in range(1, max(2, c['rows'])):
            steps[k] = worst(rows, k)
        clip = {'name': c['name'], 'rows_60hz': c['rows'], 'duration': c.get('duration'), 'kept': {},
                # every other 60 Hz row: about what the default 30 Hz bake interpolates
                'worst_at_30hz': steps.get(2, (0.0, c['rows']))[0] / diagonal}
        for tol in tols:
            ok = [kept for k, (err, kept) in steps.items() if err <= tol * diagonal]
            clip['kept'][str(tol)] = min(ok) if ok else c['rows']
        out['clips'].append(clip)
    print(json.dumps(out))


if __name__ == '__main__':
    main()
