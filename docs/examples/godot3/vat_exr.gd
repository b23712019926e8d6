# Godot 3.x: reads a `--target godot` EXR (vatbake's: one part, scanlines, 32-bit float
# channels, compression NONE, ZIPS or ZIP) into a FORMAT_RGBAF Image, every bit of the
# 16-bit texels kept (Godot 3's own loader, Image.load, narrows EXRs to half floats).
#
#     var image = preload("res://vat_exr.gd").load_rgbaf("res://unit-godot.exr")
#     var vat = ImageTexture.new()
#     vat.create_from_image(image, 0)   # flags 0: nearest, clamp, no mipmaps
#
# Returns null (and prints why) on a file it cannot read. Decoding runs in GDScript:
# measured 2.4 to 3.8 s for the Fox's 1728 × 162 texels (4.5 MB of floats) in Godot 3.2.3
# here, so decode once, at load time. tests/browser/godot.test.mjs checks the result bit
# for bit against the file (three.js's EXRLoader) and plays it.
extends Reference

const NONE = 0
const ZIPS = 2
const ZIP = 3
const FLOAT = 2

static func load_rgbaf(path):
	var f = File.new()
	if f.open(path, File.READ) != OK:
		printerr("vat_exr.gd: cannot open %s" % path)
		return null
	var bytes = f.get_buffer(f.get_len())
	f.close()
	var s = StreamPeerBuffer.new()
	s.data_array = bytes
	if s.get_u32() != 20000630:
		printerr("vat_exr.gd: %s is not an OpenEXR file" % path)
		return null
	# Version flags: 0x200 tiled, 0x800 deep, 0x1000 multi-part (0x400, long names, is fine).
	if s.get_u32() & 0x1a00 != 0:
		printerr("vat_exr.gd: %s is tiled, deep or multi-part; expected one part of scanlines" % path)
		return null
	var channels = []
	var compression = -1
	var window = []
	while true:
		var name = _string(s)
		if name == "":
			break
		var kind = _string(s)
		var size = s.get_32()
		var start = s.get_position()
		if name == "channels" and kind == "chlist":
			while true:
				var channel = _string(s)
				if channel == "":
					break
				channels.append([channel, s.get_32()])
				s.seek(s.get_position() + 12)
		elif name == "compression":
			compression = s.get_u8()
		elif name == "dataWindow":
			window = [s.get_32(), s.get_32(), s.get_32(), s.get_32()]
		s.seek(start + size)
	var names = []
	for c in channels:
		names.append(c[0])
		if c[1] != FLOAT:
			printerr("vat_exr.gd: %s: channel %s is not 32-bit float" % [path, c[0]])
			return null
	if names != ["A", "B", "G", "R"]:
		printerr("vat_exr.gd: %s: channels %s, expected A B G R" % [path, str(names)])
		return null
	var lines_per_chunk = {NONE: 1, ZIPS: 1, ZIP: 16}.get(compression, 0)
	if lines_per_chunk == 0 or window.size() != 4:
		printerr("vat_exr.gd: %s: compression %d unsupported (NONE, ZIPS or ZIP)" % [path, compression])
		return null
	var width = window[2] - window[0] + 1
	var height = window[3] - window[1] + 1
	var chunks = (height + lines_per_chunk - 1) / lines_per_chunk
	var offsets = []
	for i in range(chunks):
		offsets.append(s.get_u64())
	var row = width * 4
	var out = PoolByteArray()
	out.resize(width * height * 16)
	for i in range(chunks):
		if offsets[i] + 8 > bytes.size():
			printerr("vat_exr.gd: %s is truncated (chunk %d of %d missing)" % [path, i, chunks])
			return null
		s.seek(offsets[i])
		var y0 = s.get_32() - window[1]
		var packed = s.get_32()
		if y0 < 0 or y0 >= height or packed <= 0 or offsets[i] + 8 + packed > bytes.size():
			printerr("vat_exr.gd: %s is truncated or damaged (chunk %d of %d)" % [path, i, chunks])
			return null
		var lines = min(lines_per_chunk, height - y0)
		var raw_size = lines * width * 16
		var raw = bytes.subarray(s.get_position(), s.get_position() + packed - 1)
		if packed < raw_size:
			raw = _unzip(raw.decompress(raw_size, File.COMPRESSION_DEFLATE))
		if raw.size() != raw_size:
			printerr("vat_exr.gd: %s: chunk %d holds %d bytes, expected %d" % [path, i, raw.size(), raw_size])
			return null
		# Each line: all of A, then B, G, R (width floats each); the Image wants R G B A a texel.
		for l in range(lines):
			var line = l * width * 16
			var to = (y0 + l) * width * 16
			for c in range(4):
				var plane = line + (3 - c) * row
				for x in range(width):
					var from = plane + x * 4
					var at = to + x * 16 + c * 4
					out[at] = raw[from]
					out[at + 1] = raw[from + 1]
					out[at + 2] = raw[from + 2]
					out[at + 3] = raw[from + 3]
	var image = Image.new()
	image.create_from_data(width, height, false, Image.FORMAT_RGBAF, out)
	return image

static func _string(s):
	var b = PoolByteArray()
	while true:
		var c = s.get_u8()
		if c == 0:
			break
		b.append(c)
	return b.get_string_from_ascii()

# OpenEXR's ZIP: after inflating, undo the byte predictor, then interleave the halves.
static func _unzip(t):
	var n = t.size()
	for i in range(1, n):
		t[i] = (t[i - 1] + t[i] - 128) & 255
	var out = PoolByteArray()
	out.resize(n)
	var half = (n + 1) / 2
	for i in range(half):
		out[2 * i] = t[i]
	for i in range(n - half):
		out[2 * i + 1] = t[half + i]
	return out
