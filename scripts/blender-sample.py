# The Blender baseline of docs/PERFORMANCE.md ("Against Blender"): import a glTF, then
# sample every action at 30 rows per second (the bake's default rate), reading every
# evaluated vertex position: the work a vertex-animation bake does in Blender.
# Run by scripts/bench-blender.sh: blender -b --factory-startup --python THIS -- MODEL
import array
import sys
import time

import bpy
import numpy
if not hasattr(numpy, "bool"):
    numpy.bool = bool  # Blender 3.4's glTF importer uses the alias NumPy 1.24 removed
argv = sys.argv[sys.argv.index("--") + 1:]
path = argv[0]
t0 = time.perf_counter()
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps = 30
bpy.ops.import_scene.gltf(filepath=path)
t1 = time.perf_counter()
meshes = [o for o in scene.objects if o.type == 'MESH']
arms = [o for o in scene.objects if o.type == 'ARMATURE']
actions = list(bpy.data.actions)
rows = 0
points = 0
for act in actions:
    for a in arms:
        if a.animation_data is None:
            a.animation_data_create()
        # the importer leaves each clip on an NLA track too: mute them, play one action
        for t in a.animation_data.nla_tracks:
            t.mute = True
        a.animation_data.action = act
    start, end = act.frame_range
    f = int(start)
    while f <= int(round(end)):
        scene.frame_set(f)
        dg = bpy.context.evaluated_depsgraph_get()
        for o in meshes:
            ev = o.evaluated_get(dg)
            m = ev.to_mesh()
            buf = array.array('f', [0.0]) * (len(m.vertices) * 3)
            m.vertices.foreach_get('co', buf)
            points += len(m.vertices)
            ev.to_mesh_clear()
        rows += 1
        f += 1
t2 = time.perf_counter()
print(f"BLENDER import {t1-t0:.3f} s sampling {t2-t1:.3f} s rows {rows} point-rows {points} actions {len(actions)}")
