#!/usr/bin/env python3
"""Fills fuzz/corpus/<target>/ with seeds from the repository's fixtures.

Run from anywhere: python3 fuzz/seed_corpora.py [path/to/vatbake]
The vatbake binary (default: target/debug/vatbake) bakes a few fixtures to get
real KTX2 files. The corpus folders are libFuzzer's working sets (gitignored);
inputs worth keeping go to tests/corpus/.
"""
import json
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
MODELS = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.suffix in (".glb", ".gltf"))


def put(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def glb_chunks(data):
    """(json bytes, bin bytes or None) of a GLB."""
    at, json_chunk, bin_chunk = 12, None, None
    while at + 8 <= len(data):
        length, kind = struct.unpack_from("<II", data, at)
        chunk = data[at + 8 : at + 8 + length]
        if kind == 0x4E4F534A and json_chunk is None:
            json_chunk = chunk
        elif kind == 0x004E4942 and bin_chunk is None:
            bin_chunk = chunk
        at += 8 + length
    return json_chunk, bin_chunk


def meshopt_seeds():
    """One seed per compressed view of the gltfpack fixtures, in the meshopt target's format."""
    modes = {"ATTRIBUTES": 0, "TRIANGLES": 1, "INDICES": 2}
    filters = {"NONE": 0, "OCTAHEDRAL": 1, "QUATERNION": 2, "EXPONENTIAL": 3, "COLOR": 4}
    for model in MODELS:
        if not model.name.endswith(".meshopt.glb"):
            continue
        json_chunk, bin_chunk = glb_chunks(model.read_bytes())
        doc = json.loads(json_chunk)
        for index, view in enumerate(doc.get("bufferViews", [])):
            ext = view.get("extensions", {}).get("EXT_meshopt_compression")
            if not ext or ext["buffer"] != 0 or ext["count"] > 0xFFFF:
                continue
            start = ext.get("byteOffset", 0)
            data = bin_chunk[start : start + ext["byteLength"]]
            header = bytes([modes[ext["mode"]], filters[ext.get("filter", "NONE")], ext["byteStride"]])
            header += struct.pack("<H", ext["count"]) + bytes([1, 0, 0])
            put("meshopt", f"{model.stem}-view{index}", header + data)


def ktx2_seeds(vatbake):
    with tempfile.TemporaryDirectory() as out:
        for model in ["SimpleSkin/SimpleSkin.gltf", "AnimatedMorphCube/AnimatedMorphCube.gltf", "Fox/Fox.glb"]:
            folder = pathlib.Path(out) / pathlib.Path(model).stem
            subprocess.run([vatbake, "bake", ROOT / "fixtures" / model, "-o", folder, "--points", "all", "-q"], check=True)
            for file in folder.iterdir():
                if file.suffix == ".ktx2":
                    put("ktx2_decode", file.name, file.read_bytes())
                    # texture_header: the description's length, the description, the texture.
                    description = file.with_suffix(".json").read_bytes()
                    pair = struct.pack("<I", len(description)) + description + file.read_bytes()
                    put("texture_header", file.stem, pair)
                elif file.suffix == ".glb":  # the rest meshes: small, valid GLBs
                    put("gltf_load", file.name, file.read_bytes())
                    put("evaluate", file.name, file.read_bytes())
                    put("rest_mesh", file.name, file.read_bytes())
                elif file.name.endswith(".vat.json"):
                    put("description", file.name, file.read_bytes())
    # A 1×1 uncompressed file built from SimpleSkin's header, DFD and key/value data.
    data = (CORPUS / "ktx2_decode" / "SimpleSkin.vat.ktx2").read_bytes()
    fields = list(struct.unpack_from("<9I4I", data, 12))
    dfd_offset, dfd_length, kvd_offset, kvd_length = fields[9:13]
    dfd, kvd = data[dfd_offset : dfd_offset + dfd_length], data[kvd_offset : kvd_offset + kvd_length]
    level_offset = 104 + len(dfd) + len(kvd)
    level_offset += -level_offset % 8
    fields[2:4] = [1, 1]  # pixelWidth, pixelHeight
    fields[8] = 0  # supercompressionScheme: none
    fields[9], fields[11] = 104, 104 + len(dfd)
    header = data[:12] + struct.pack("<9I4I", *fields) + struct.pack("<QQ", 0, 0)
    index = struct.pack("<QQQ", level_offset, 8, 8)
    body = header + index + dfd + kvd
    body += bytes(level_offset - len(body))
    put("ktx2_decode", "tiny-uncompressed.ktx2", body + bytes(range(8)))


def main():
    vatbake = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target" / "debug" / "vatbake")
    for model in MODELS:
        if model.stat().st_size > 300_000:
            continue  # big seeds slow every mutation down (run with -max_len=300000)
        for target in ("gltf_load", "evaluate"):
            put(target, model.name, model.read_bytes())
    # The kept regression inputs are seeds too.
    for kept in sorted((ROOT / "tests" / "corpus").glob("*")):
        if kept.suffix in (".glb", ".gltf"):
            for target in ("gltf_load", "evaluate"):
                put(target, kept.name, kept.read_bytes())
        elif kept.suffix == ".ktx2":
            put("ktx2_decode", kept.name, kept.read_bytes())
    # The regression inputs of the readers of a bake are seeds of their targets.
    for target in ("description", "rest_mesh", "texture_header"):
        for kept in sorted((ROOT / "fuzz" / "regressions" / target).glob("*")):
            put(target, kept.name, kept.read_bytes())
    meshopt_seeds()
    ktx2_seeds(vatbake)
    (CORPUS / "accessors").mkdir(parents=True, exist_ok=True)
    for target in sorted(CORPUS.iterdir()):
        print(f"{target.name}: {len(list(target.iterdir()))} seeds")


if __name__ == "__main__":
    main()
