#!/usr/bin/env python3
"""Writes fuzz/regressions/<target>/: the inputs that crashed, starved or fooled the
readers of a bake before issue 27, each crafted from a bake of SimpleSkin.

    vatbake bake fixtures/SimpleSkin/SimpleSkin.gltf -o /tmp/ss --points all -q
    python3 fuzz/regressions/crafted.py /tmp/ss

crates/vatbake/tests/fuzz_readers.rs checks the refusal each one gets.
"""
import json
import pathlib
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent


def put(target, name, data):
    folder = HERE / target
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(data)


def description_with(description, edit):
    d = json.loads(description)
    edit(d)
    return json.dumps(d, indent=2).encode()


def glb_with(glb, edit):
    """The GLB with its JSON chunk edited (the binary chunk kept)."""
    length, _ = struct.unpack_from("<II", glb, 12)
    doc = json.loads(glb[20 : 20 + length])
    rest = glb[20 + length :]
    edit(doc)
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text + rest
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body


def main():
    bake = pathlib.Path(sys.argv[1])
    description = (bake / "SimpleSkin.vat.json").read_bytes()
    glb = (bake / "SimpleSkin.rest.glb").read_bytes()
    ktx2 = (bake / "SimpleSkin.vat.ktx2").read_bytes()

    def clip(field, value):
        return lambda d: d["clips"][0].update({field: value})

    put("description", "clip-row-past-the-texture.vat.json", description_with(description, clip("row", 1000)))
    put("description", "clip-rows-u32-max.vat.json", description_with(description, clip("rows", 4294967295)))
    # (JSON has no infinity: 1e999 is refused by the parser as out of range.)
    put("description", "clip-rate-zero.vat.json", description_with(description, clip("rate", 0)))
    text = description_with(description, lambda d: d["positions"]["half_extent"].__setitem__(1, -1))
    put("description", "half-extent-negative.vat.json", text)
    put("description", "deep-nesting.vat.json", b'{"format": "vatbake.vat", "format_version": 1, "clips": ' + b"[" * 5000 + b"]" * 5000 + b"}")

    def accessor(index, field, value):
        return lambda doc: doc["accessors"][index].update({field: value})

    position = json.loads(glb[20 : 20 + struct.unpack_from("<I", glb, 12)[0]])["meshes"][0]["primitives"][0]
    indices = position["indices"]
    put("rest_mesh", "accessor-count-wraps.rest.glb", glb_with(glb, accessor(0, "count", 4611686018427387904)))
    def stride_0_indices(doc):
        doc["accessors"][indices]["count"] = 6442450941  # 2^31 × 3 − 3
        doc["bufferViews"][doc["accessors"][indices]["bufferView"]]["byteStride"] = 0

    put("rest_mesh", "index-stride-0-6g-indices.rest.glb", glb_with(glb, stride_0_indices))
    put("rest_mesh", "byte-offset-wraps.rest.glb", glb_with(glb, accessor(0, "byteOffset", 18446744073709551612)))

    # A KTX2 header declaring 16384 × 8192 texels (1 GiB), cut after its key/value data.
    kvd_offset, kvd_length = struct.unpack_from("<II", ktx2, 56)
    header = bytearray(ktx2[: kvd_offset + kvd_length])
    struct.pack_into("<II", header, 20, 16384, 8192)
    put("texture_header", "ktx2-declares-1gib.bin", struct.pack("<I", len(description)) + description + bytes(header))


if __name__ == "__main__":
    main()
