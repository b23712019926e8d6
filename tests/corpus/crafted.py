"""Writes the hand-made models of tests/corpus/ (found by reading the loader, not by
the fuzzer): python3 tests/corpus/crafted.py. Each is small and asks for far more than
it holds; crates/vatbake/tests/corpus.rs lists the message each must end with.
"""
import base64, json, struct, pathlib

out = pathlib.Path(__file__).resolve().parent

def base(times=(0.0, 1.0)):
    pos = struct.pack("<9f", 0,0,0, 1,0,0, 0,1,0)
    t = struct.pack(f"<{len(times)}f", *times)
    v = struct.pack(f"<{3*len(times)}f", *([0.0]*3*len(times)))
    buf = pos + t + v
    return {
        "asset": {"version": "2.0"},
        "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "buffers": [{"byteLength": len(buf), "uri": "data:application/octet-stream;base64," + base64.b64encode(buf).decode()}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": len(t)},
                        {"buffer": 0, "byteOffset": 36 + len(t), "byteLength": len(v)}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "type": "VEC3", "count": 3},
                      {"bufferView": 1, "componentType": 5126, "type": "SCALAR", "count": len(times)},
                      {"bufferView": 2, "componentType": 5126, "type": "VEC3", "count": len(times)}],
        "animations": [{"samplers": [{"input": 1, "output": 2}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}],
    }

def write(name, doc):
    (out / name).write_text(json.dumps(doc, separators=(",", ":")))

# A last key at 1e30 s: round(1e30 × 30) + 1 rows overflowed u64 in clip_rows (a panic in debug builds).
write("key-time-1e30-row-overflow.gltf", base((0.0, 1e30)))

# One mesh of 500,000 zero-filled points (no bufferView) on 9 nodes: 4.5M points from 1 KB.
d = base()
d["accessors"].append({"componentType": 5126, "type": "VEC3", "count": 500_000})
d["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 3
d["nodes"] = [{"children": list(range(1, 10))}] + [{"mesh": 0} for _ in range(9)]
d["animations"][0]["channels"][0]["target"]["node"] = 0
write("instanced-mesh-4m-points.gltf", d)

# One 4M-key zero-filled sampler named by 64 channels: 1 GiB of keyframes from 4 KB.
d = base()
d["accessors"] += [{"componentType": 5126, "type": "SCALAR", "count": 4_000_000},
                   {"componentType": 5126, "type": "VEC3", "count": 4_000_000}]
d["nodes"] = [{"mesh": 0, "children": list(range(1, 65))}] + [{} for _ in range(64)]
d["animations"][0]["samplers"] = [{"input": 3, "output": 4}]
d["animations"][0]["channels"] = [{"sampler": 0, "target": {"node": n, "path": "translation"}} for n in range(1, 65)]
write("channels-share-one-huge-sampler.gltf", d)

# 1M zero-filled points with 2000 morph targets that have no POSITION (TANGENT only): 24 GB of zero deltas.
d = base()
d["accessors"].append({"componentType": 5126, "type": "VEC3", "count": 1_000_000})
prim = d["meshes"][0]["primitives"][0]
prim["attributes"]["POSITION"] = 3
prim["targets"] = [{"TANGENT": 3} for _ in range(2000)]
write("morph-targets-without-position.gltf", d)


# A sparse block of 4 substitutions in a 3-element accessor (all at index 0): the
# substitution work is not bounded by the element count that the read budget charges.
d = base()
sparse = bytes(4) + bytes(48)
d["buffers"].append({"byteLength": len(sparse), "uri": "data:application/octet-stream;base64," + base64.b64encode(sparse).decode()})
d["bufferViews"] += [{"buffer": 1, "byteLength": 4}, {"buffer": 1, "byteOffset": 4, "byteLength": 48}]
d["accessors"][0]["sparse"] = {"count": 4, "indices": {"bufferView": 3, "componentType": 5121}, "values": {"bufferView": 4}}
write("sparse-count-past-accessor-count.gltf", d)


# SimpleSkin (Khronos, CC0) with every weight scaled by 0.8: each point's weights sum to
# 0.8, not 1 (the validator's ACCESSOR_WEIGHTS_NON_NORMALIZED error). Not hostile: real
# exporters write such files, and readers (three.js included) renormalize.
d = json.loads((out.parent.parent / "fixtures" / "SimpleSkin" / "SimpleSkin.gltf").read_text())
acc = d["accessors"][d["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"]]
view = d["bufferViews"][acc["bufferView"]]
buf = d["buffers"][view["buffer"]]
data = bytearray(base64.b64decode(buf["uri"].split(",", 1)[1]))
for i in range(acc["count"]):
    at = view.get("byteOffset", 0) + acc.get("byteOffset", 0) + i * view.get("byteStride", 16)
    struct.pack_into("<4f", data, at, *(w * 0.8 for w in struct.unpack_from("<4f", data, at)))
acc["min"] = [w * 0.8 for w in acc["min"]]
acc["max"] = [w * 0.8 for w in acc["max"]]
buf["uri"] = "data:application/octet-stream;base64," + base64.b64encode(bytes(data)).decode()
write("weights-sum-not-one.gltf", d)
