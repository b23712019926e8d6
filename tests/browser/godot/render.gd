# Run by godot3 (Godot 3.2, GLES3) as `godot3 --path <project> -s render.gd`: draws each
# unit of res://job.json (written by ../godot.test.mjs: the EXR loaded with Image.load and
# given texture flags, or an imported texture; the editor-imported rest mesh; the camera)
# with the VAT shader (res://godot3_vat.shader) at the texture rows the job lists, white on
# black into a size × size viewport, and writes each frame as an 8-bit mask (one byte a
# pixel, top row first) plus a PNG, then quits. Exit code 0 only when every frame was
# written.
extends SceneTree

var job
var viewport
var camera
var units = []
var frames = []
var next = 0
var pending = null
var wait = 0
var failed = false

func fail(message):
	printerr("render.gd: " + message)
	failed = true
	quit(1)

func _init():
	var f = File.new()
	if f.open("res://job.json", File.READ) != OK:
		return fail("cannot open res://job.json")
	job = parse_json(f.get_as_text())
	f.close()
	var shader = Shader.new()
	if f.open("res://godot3_vat.shader", File.READ) != OK:
		return fail("cannot open res://godot3_vat.shader")
	shader.code = f.get_as_text()
	f.close()

	VisualServer.set_default_clear_color(Color(0, 0, 0))
	viewport = Viewport.new()
	viewport.size = Vector2(job.size, job.size)
	viewport.msaa = Viewport.MSAA_DISABLED
	viewport.render_target_update_mode = Viewport.UPDATE_ALWAYS
	viewport.own_world = true
	root.add_child(viewport)
	var environment = Environment.new()
	environment.background_mode = Environment.BG_COLOR
	environment.background_color = Color(0, 0, 0)
	camera = Camera.new()
	camera.environment = environment
	viewport.add_child(camera)
	camera.current = true

	for u in job.units:
		var texture
		var image
		if u.loader != "":
			# docs/examples/godot3/vat_exr.gd: the EXR's 32-bit floats kept (FORMAT_RGBAF).
			var started = OS.get_ticks_msec()
			image = load(u.loader).load_rgbaf(u.exr)
			if image == null:
				return fail(u.loader + " could not read " + u.exr)
			print("unit %s: %s decoded the EXR in %d ms" % [u.name, u.loader, OS.get_ticks_msec() - started])
			texture = ImageTexture.new()
			texture.create_from_image(image, int(u.flags))
		elif u.texture != "":
			# Through the editor's texture importer (a StreamTexture with the import's flags).
			texture = load(u.texture)
			if texture == null:
				return fail("cannot load " + u.texture)
			image = texture.get_data()
			var loaded = Image.new()
			if loaded.load(u.exr) != OK:
				return fail("cannot load " + u.exr)
			print("unit %s: imported texels equal Image.load's: %s" % [u.name, str(loaded.get_format() == image.get_format() and loaded.get_data() == image.get_data())])
		else:
			image = Image.new()
			if image.load(u.exr) != OK:
				return fail("cannot load " + u.exr)
			texture = ImageTexture.new()
			texture.create_from_image(image, int(u.flags))
		if u.texels_out != "":
			# The texels as Godot holds them (4 half or 32-bit floats a texel, top row first).
			var dump = File.new()
			if dump.open(u.texels_out, File.WRITE) != OK:
				return fail("cannot write " + u.texels_out)
			dump.store_buffer(image.get_data())
			dump.close()
		var material = ShaderMaterial.new()
		material.shader = shader
		material.set_shader_param("vat", texture)
		material.set_shader_param("vat_center", Vector3(u.center[0], u.center[1], u.center[2]))
		material.set_shader_param("vat_half_extent", Vector3(u.half_extent[0], u.half_extent[1], u.half_extent[2]))
		var scene = load(u.mesh)
		if scene == null:
			return fail("cannot load " + u.mesh)
		var node = scene.instance()
		var meshes = []
		collect_meshes(node, meshes)
		if meshes.empty():
			return fail(u.mesh + " holds no MeshInstance")
		for m in meshes:
			m.material_override = material
		node.visible = false
		viewport.add_child(node)
		# Each surface's UV2 as the renderer has it (float32 pairs), for the test to check
		# which texture column every vertex addresses.
		var info = []
		var uv2 = File.new()
		if uv2.open(u.uv2_out, File.WRITE) != OK:
			return fail("cannot write " + u.uv2_out)
		for m in meshes:
			var mesh = m.mesh
			for s in range(mesh.get_surface_count()):
				info.append({"vertices": mesh.surface_get_array_len(s), "format": mesh.surface_get_format(s)})
				for v in mesh.surface_get_arrays(s)[Mesh.ARRAY_TEX_UV2]:
					uv2.store_float(v.x)
					uv2.store_float(v.y)
		uv2.close()
		print("unit %s: image format %d %dx%d, flags %d, surfaces %s" % [u.name, image.get_format(), image.get_width(), image.get_height(), texture.flags, to_json(info)])
		units.append({"node": node, "material": material, "camera": u.camera})
		for fr in u.frames:
			frames.append({"unit": units.size() - 1, "row": fr.row, "out": fr.out})
	# Files vat_exr.gd must refuse (null and a message), not misread.
	for path in job.refuse:
		print("refused %s: %s" % [path, str(load("res://vat_exr.gd").load_rgbaf(path) == null)])
	print("renderer: %s, %d frames" % [VisualServer.get_video_adapter_name(), frames.size()])

func collect_meshes(node, out):
	if node is MeshInstance:
		out.append(node)
	for c in node.get_children():
		collect_meshes(c, out)

func _idle(_delta):
	if failed:
		return true
	if wait > 0:
		wait -= 1
		return false
	if pending != null:
		var image = viewport.get_texture().get_data()
		image.flip_y()
		image.convert(Image.FORMAT_L8)
		var f = File.new()
		if f.open(pending.out + ".mask", File.WRITE) != OK:
			fail("cannot write " + pending.out + ".mask")
			return true
		f.store_buffer(image.get_data())
		f.close()
		image.save_png(pending.out + ".png")
		pending = null
	if next >= frames.size():
		print("render.gd: %d frames written" % frames.size())
		quit(0)
		return true
	var fr = frames[next]
	next += 1
	for i in range(units.size()):
		units[i].node.visible = i == fr.unit
	var u = units[fr.unit]
	u.material.set_shader_param("vat_row", float(fr.row))
	var c = u.camera
	camera.set_perspective(c.fov, c.near, c.far)
	camera.look_at_from_position(Vector3(c.position[0], c.position[1], c.position[2]), Vector3(c.target[0], c.target[1], c.target[2]), Vector3.UP)
	pending = fr
	# Two frames: the new uniforms and camera drawn, then read back.
	wait = 2
	return false
