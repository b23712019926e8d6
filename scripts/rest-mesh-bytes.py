#!/usr/bin/env python3
"""Issue 29: the rest GLB's bytes, plain and with `--rest-mesh meshopt`
(docs/PERFORMANCE.md, "Rest mesh: meshopt").

For each model, bakes it twice with the binary given (default settings, then
`--rest-mesh meshopt`) and measures both rest GLBs: the whole file; its geometry (the
file less the embedded images' bytes, which both carry unchanged); and, as the
baselines a web server gives for free, gzip -9 (CPython's zlib) and `zstd -19` (the CLI)
of each whole file.

Usage: python3 scripts/rest-mesh-bytes.py [--bin target/release/vatbake] [--points N|all] MODEL...
  MODEL: a path under fixtures/ (Fox/Fox.glb) or any other path.
Prints a markdown table, one row per model, and the median ratio.
"""
import json, os, struct, subprocess, sys, tempfile, zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def glb_json(data):
    length, kind = struct.unpack_from("<II", data, 12)
    assert kind == 0x4E4F534A, "GLB without a JSON chunk first"
    return json.loads(data[20:20 + length])


def image_bytes(data):
    doc = glb_json(data)
    views = doc.get("bufferViews", [])
    return sum(views[i["bufferView"]]["byteLength"] for i in doc.get("images", []) if "bufferView" in i)


def zstd19(data):
    return len(subprocess.run(["zstd", "-19", "-q", "-c"], input=data, capture_output=True, check=True).stdout)


def bake(binary, model, extra):
    out = tempfile.mkdtemp(prefix="rest-mesh-bytes-")
    subprocess.run([binary, "bake", model, "-o", out, "-q", *extra], check=True)
    stem = os.path.splitext(os.path.basename(model))[0]
    with open(os.path.join(out, f"{stem}.rest.glb"), "rb") as f:
        return f.read()


def main(argv):
    binary = os.path.join(REPO, "target/release/vatbake")
    extra = []
    while argv[:1] in (["--bin"], ["--points"]):
        if argv[0] == "--bin":
            binary = argv[1]
        else:
            extra = ["--points", argv[1]]
        argv = argv[2:]
    print("| model | plain | meshopt | × | geometry plain → meshopt | × | gzip -9 plain → meshopt | zstd -19 plain → meshopt |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    ratios = []
    for model in argv:
        path = model if os.path.exists(model) else os.path.join(REPO, "fixtures", model)
        plain, packed = bake(binary, path, extra), bake(binary, path, [*extra, "--rest-mesh", "meshopt"])
        images = image_bytes(plain)
        assert images == image_bytes(packed), "both files carry the same images"
        gp, gm = len(plain) - images, len(packed) - images
        ratios.append(len(packed) / len(plain))
        zp, zm = len(zlib.compress(plain, 9)), len(zlib.compress(packed, 9))
        print(f"| {model} | {len(plain):,} | {len(packed):,} | {len(packed) / len(plain):.2f} | "
              f"{gp:,} → {gm:,} | {gm / gp:.2f} | {zp:,} → {zm:,} | {zstd19(plain):,} → {zstd19(packed):,} |")
    ratios.sort()
    print(f"\nmedian whole-file ratio {ratios[(len(ratios) - 1) // 2]:.2f} over {len(ratios)} models")


if __name__ == "__main__":
    main(sys.argv[1:])
