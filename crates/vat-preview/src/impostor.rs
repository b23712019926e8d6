//! Impostor cells: one pose of a unit drawn from one direction into two small 8-bit
//! pictures, its base colour with coverage and its normal with depth, as a billboard
//! shows it in place of the mesh.
//!
//! The camera is orthographic, looking at a pivot from an azimuth around +Y and an
//! elevation above the ground plane, framing a square of a given world size. Every
//! texel is the resolve of [`SAMPLES`] × [`SAMPLES`] samples: its alpha is the share of
//! them the surface covers, its colour and normal the mean of the covered ones. The
//! colour of the uncovered texels is then filled in from their covered neighbours
//! (dilation), so that a sampler blending across the silhouette, or a smaller mip
//! level, never pulls in a background colour: no halo.

use crate::raster::{cover, fixed};
use crate::types::{Error, Frame, MAX_PIXELS};

/// Samples per texel along each side (16 per texel): coverage in steps of 1/16.
pub const SAMPLES: u32 = 4;

/// How a texture coordinate outside `[0, 1]` reads (glTF sampler `wrapS`/`wrapT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrap {
    /// 10497, the default: the texture repeats.
    Repeat,
    /// 33071: the edge texel extends.
    Clamp,
    /// 33648: every other repeat is mirrored.
    Mirror,
}

impl Wrap {
    /// The glTF sampler's code; `None` (absent) is [`Wrap::Repeat`], an unknown code `None`.
    pub fn from_gl(code: Option<u64>) -> Option<Wrap> {
        match code {
            None | Some(10497) => Some(Wrap::Repeat),
            Some(33071) => Some(Wrap::Clamp),
            Some(33648) => Some(Wrap::Mirror),
            Some(_) => None,
        }
    }

    fn texel(self, i: i64, n: i64) -> usize {
        (match self {
            Wrap::Repeat => i.rem_euclid(n),
            Wrap::Clamp => i.clamp(0, n - 1),
            Wrap::Mirror => {
                let m = i.rem_euclid(2 * n);
                if m < n {
                    m
                } else {
                    2 * n - 1 - m
                }
            }
        }) as usize
    }
}

/// A decoded base colour texture: RGBA 8-bit, colour sRGB-encoded, row 0 the top (the
/// glTF uv origin), with its sampler's wrap modes.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// R, G, B, A of every texel, row by row.
    pub pixels: Vec<u8>,
    /// Wrap along u and along v.
    pub wrap: [Wrap; 2],
}

impl Texture {
    /// Decodes a PNG or a JPEG (told apart by their first bytes) into RGBA 8-bit. An
    /// image of another kind, a broken one or one past [`MAX_PIXELS`] is an error.
    pub fn decode(bytes: &[u8]) -> Result<Texture, Error> {
        let (width, height, pixels) = if bytes.starts_with(b"\x89PNG") {
            decode_png(bytes)?
        } else if bytes.starts_with(&[0xFF, 0xD8]) {
            decode_jpeg(bytes)?
        } else {
            return Err(Error::Image("neither a PNG nor a JPEG".to_string()));
        };
        Ok(Texture { width, height, pixels, wrap: [Wrap::Repeat; 2] })
    }

    /// The colour at `uv`, bilinear between the four nearest texels in linear light:
    /// linear RGB and alpha.
    fn sample(&self, uv: [f32; 2]) -> [f32; 4] {
        let (w, h) = (self.width as i64, self.height as i64);
        let x = uv[0] * self.width as f32 - 0.5;
        let y = uv[1] * self.height as f32 - 0.5;
        if !(x.is_finite() && y.is_finite()) || x.abs() > 1e9 || y.abs() > 1e9 {
            return self.texel(0, 0);
        }
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let (x0, y0) = (x0 as i64, y0 as i64);
        let at = |dx: i64, dy: i64| self.texel(self.wrap[0].texel(x0 + dx, w), self.wrap[1].texel(y0 + dy, h));
        let (a, b, c, d) = (at(0, 0), at(1, 0), at(0, 1), at(1, 1));
        std::array::from_fn(|k| {
            let top = a[k] + (b[k] - a[k]) * fx;
            let bottom = c[k] + (d[k] - c[k]) * fx;
            top + (bottom - top) * fy
        })
    }

    fn texel(&self, x: usize, y: usize) -> [f32; 4] {
        let at = (y * self.width as usize + x) * 4;
        let p = &self.pixels[at..at + 4];
        [srgb_to_linear(p[0]), srgb_to_linear(p[1]), srgb_to_linear(p[2]), f32::from(p[3]) / 255.0]
    }
}

fn check_pixels(width: u32, height: u32) -> Result<(), Error> {
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(Error::Image(format!("a {width}x{height} image is empty or larger than {MAX_PIXELS} pixels")));
    }
    Ok(())
}

fn decode_png(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), Error> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    // Palettes expanded, 16-bit channels cut to 8: every PNG comes out as 8-bit samples.
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let header = decoder.read_header_info().map_err(|e| Error::Image(format!("PNG: {e}")))?;
    let (width, height) = (header.width, header.height);
    check_pixels(width, height)?;
    let mut reader = decoder.read_info().map_err(|e| Error::Image(format!("PNG: {e}")))?;
    let mut buffer = vec![0; reader.output_buffer_size().ok_or(Error::Image("PNG: too large".to_string()))?];
    let info = reader.next_frame(&mut buffer).map_err(|e| Error::Image(format!("PNG: {e}")))?;
    let data = &buffer[..info.buffer_size()];
    let pixels = (width as usize) * (height as usize);
    let rgba: Vec<u8> = match info.color_type {
        png::ColorType::Rgba => data.to_vec(),
        png::ColorType::Rgb => data.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => data.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err(Error::Image("PNG: a palette that did not expand".to_string())),
    };
    if rgba.len() != pixels * 4 {
        return Err(Error::Image(format!("PNG: {} bytes of pixels for {width}x{height}", rgba.len())));
    }
    Ok((width, height, rgba))
}

fn decode_jpeg(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), Error> {
    let options = zune_jpeg::zune_core::options::DecoderOptions::default()
        .jpeg_set_out_colorspace(zune_jpeg::zune_core::colorspace::ColorSpace::RGB);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(bytes, options);
    decoder.decode_headers().map_err(|e| Error::Image(format!("JPEG: {e:?}")))?;
    let (width, height) = decoder.dimensions().map(|(w, h)| (w as u32, h as u32)).unwrap_or((0, 0));
    check_pixels(width, height)?;
    let rgb = decoder.decode().map_err(|e| Error::Image(format!("JPEG: {e:?}")))?;
    if rgb.len() != width as usize * height as usize * 3 {
        return Err(Error::Image(format!("JPEG: {} bytes of pixels for {width}x{height}", rgb.len())));
    }
    Ok((width, height, rgb.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect()))
}

/// A surface's base colour, as glTF's metallic-roughness material gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// `baseColorFactor`, linear RGBA.
    pub factor: [f32; 4],
    /// The base colour texture: an index into [`Surface::textures`].
    pub texture: Option<usize>,
    /// `KHR_texture_transform` as the 2 × 3 matrix applied to uv0 (identity: none).
    pub uv_transform: [[f32; 3]; 2],
    /// `alphaMode` `MASK`'s `alphaCutoff`: samples under it are not covered. `None`:
    /// opaque (the alpha is ignored).
    pub alpha_cutoff: Option<f32>,
}

impl Default for Material {
    /// glTF's default material: white, opaque, untextured.
    fn default() -> Self {
        Material { factor: [1.0; 4], texture: None, uv_transform: IDENTITY_UV, alpha_cutoff: None }
    }
}

/// The identity uv transform.
pub const IDENTITY_UV: [[f32; 3]; 2] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

/// `KHR_texture_transform`'s `offset`, `rotation` (radians) and `scale` as one matrix
/// (translation × rotation × scale, as the extension defines it).
pub fn uv_transform(offset: [f32; 2], rotation: f32, scale: [f32; 2]) -> [[f32; 3]; 2] {
    let (s, c) = rotation.sin_cos();
    [[c * scale[0], s * scale[1], offset[0]], [-s * scale[0], c * scale[1], offset[1]]]
}

/// What is drawn: the triangles, each with its material, and every point's uv0.
#[derive(Clone, Copy, Debug)]
pub struct Surface<'a> {
    /// Triangles as point indices.
    pub triangles: &'a [[u32; 3]],
    /// The material of each triangle: an index into `materials`, `None` for glTF's
    /// default material.
    pub material_of: &'a [Option<u32>],
    /// TEXCOORD_0 of every point (empty when no material is textured).
    pub uv0: &'a [[f32; 2]],
    /// The materials.
    pub materials: &'a [Material],
    /// The decoded textures the materials use.
    pub textures: &'a [Texture],
}

/// Where a cell looks from, and what it frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellCamera {
    /// Radians around +Y from +Z (the model's front) toward +X.
    pub azimuth: f32,
    /// Radians above the ground plane (0: level; π/2: straight down).
    pub elevation: f32,
    /// The model-space point at the cell's centre.
    pub pivot: [f32; 3],
    /// The world size of the cell's side.
    pub size: f32,
}

impl CellCamera {
    /// The camera's axes in model space: right, up, and toward the camera.
    pub fn axes(&self) -> [[f32; 3]; 3] {
        let (sa, ca) = self.azimuth.sin_cos();
        let (se, ce) = self.elevation.sin_cos();
        let toward = [sa * ce, se, ca * ce];
        let right = [ca, 0.0, -sa];
        // up = toward × right
        let up = [
            toward[1] * right[2] - toward[2] * right[1],
            toward[2] * right[0] - toward[0] * right[2],
            toward[0] * right[1] - toward[1] * right[0],
        ];
        [right, up, toward]
    }
}

/// One cell: `side × side` texels of each picture, row 0 the top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpostorCell {
    /// Texels per side.
    pub side: u32,
    /// Base colour (sRGB) and coverage (alpha, linear), dilated under no coverage.
    pub colour: Vec<u8>,
    /// The model-space normal as `(n + 1) / 2` in RGB, facing the camera, and in alpha
    /// the depth toward the camera: `0.5 + (p − pivot)·toward / size`, clamped.
    pub normal: Vec<u8>,
}

const NOTHING: f32 = f32::NEG_INFINITY;

/// Draws `frame` (one pose: a position and a normal per point) of `surface` from
/// `camera` into a cell of `side` texels, as [`ImpostorCell`] says. Errors when a triangle or a
/// material names something missing or the size is out of range; triangles with a
/// non-finite corner are left out.
///
/// ```
/// use vat_preview::{render_cell, CellCamera, Frame, Material, Surface};
/// // A square facing +Z, seen from the front: it fills the middle of the cell.
/// let positions = [[-0.5, -0.5, 0.0], [0.5, -0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, 0.5, 0.0]];
/// let normals = [[0.0, 0.0, 1.0]; 4];
/// let red = [Material { factor: [1.0, 0.0, 0.0, 1.0], ..Material::default() }];
/// let surface = Surface {
///     triangles: &[[0, 1, 2], [0, 2, 3]],
///     material_of: &[Some(0), Some(0)],
///     uv0: &[],
///     materials: &red,
///     textures: &[],
/// };
/// let camera = CellCamera { azimuth: 0.0, elevation: 0.0, pivot: [0.0; 3], size: 2.0 };
/// let cell = render_cell(&surface, Frame { positions: &positions, normals: &normals }, &camera, 8)?;
/// let at = |x: usize, y: usize| &cell.colour[(y * 8 + x) * 4..][..4];
/// assert_eq!(at(4, 4), [255, 0, 0, 255]);
/// // Outside the square: no coverage, the colour filled in from the square's edge.
/// assert_eq!(at(0, 0), [255, 0, 0, 0]);
/// # Ok::<(), vat_preview::Error>(())
/// ```
pub fn render_cell(
    surface: &Surface<'_>,
    frame: Frame<'_>,
    camera: &CellCamera,
    side: u32,
) -> Result<ImpostorCell, Error> {
    check(surface, frame)?;
    if side == 0 || side > 4096 || !(camera.size.is_finite() && camera.size > 0.0) {
        return Err(Error::Size { width: u64::from(side), height: u64::from(side) });
    }
    let fine = (side * SAMPLES) as i64;
    let samples = (fine * fine) as usize;
    let mut depth = vec![NOTHING; samples];
    let mut colour = vec![[0.0f32; 3]; samples];
    let mut normal = vec![[0.0f32; 3]; samples];
    let [right, up, toward] = camera.axes();
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let pixels_per_unit = fine as f32 / camera.size;
    let project = |p: [f32; 3]| {
        let d = [p[0] - camera.pivot[0], p[1] - camera.pivot[1], p[2] - camera.pivot[2]];
        let (x, y, z) = (dot(d, right), dot(d, up), dot(d, toward));
        (fixed(fine as f32 / 2.0 + x * pixels_per_unit, fine as f32 / 2.0 - y * pixels_per_unit), z)
    };
    let default = Material::default();
    for (t, triangle) in surface.triangles.iter().enumerate() {
        let corners = triangle.map(|i| project(frame.positions[i as usize]));
        let (Some(a), Some(b), Some(c)) = (corners[0].0, corners[1].0, corners[2].0) else {
            continue;
        };
        let z = corners.map(|c| c.1);
        if !z.iter().all(|z| z.is_finite()) {
            continue;
        }
        let material = match surface.material_of.get(t).copied().flatten() {
            Some(m) => &surface.materials[m as usize],
            None => &default,
        };
        let texture = material.texture.map(|k| &surface.textures[k]);
        let uv = |i: u32| surface.uv0.get(i as usize).copied().unwrap_or([0.0, 0.0]);
        let uvs = triangle.map(|i| {
            let [u, v] = uv(i);
            let m = material.uv_transform;
            [m[0][0] * u + m[0][1] * v + m[0][2], m[1][0] * u + m[1][1] * v + m[1][2]]
        });
        let normals = triangle.map(|i| frame.normals[i as usize]);
        cover([a, b, c], fine, fine, |x, y, l| {
            let d = l[0] * z[0] + l[1] * z[1] + l[2] * z[2];
            let slot = (y * fine + x) as usize;
            if d <= depth[slot] {
                return;
            }
            let base = match texture {
                Some(texture) => {
                    let at = std::array::from_fn(|k| l[0] * uvs[0][k] + l[1] * uvs[1][k] + l[2] * uvs[2][k]);
                    let s = texture.sample(at);
                    std::array::from_fn(|k| s[k] * material.factor[k])
                }
                None => material.factor,
            };
            if material.alpha_cutoff.is_some_and(|cutoff| base[3] < cutoff) {
                return;
            }
            depth[slot] = d;
            colour[slot] = [base[0], base[1], base[2]];
            let mut n: [f32; 3] =
                std::array::from_fn(|k| l[0] * normals[0][k] + l[1] * normals[1][k] + l[2] * normals[2][k]);
            // Two-sided: a normal facing away is turned toward the camera.
            if dot(n, toward) < 0.0 {
                n = n.map(|c| -c);
            }
            normal[slot] = n;
        });
    }
    Ok(resolve(side, &depth, &colour, &normal, camera.size))
}

fn check(surface: &Surface<'_>, frame: Frame<'_>) -> Result<(), Error> {
    crate::raster::check_frame(&crate::types::Mesh { triangles: surface.triangles.to_vec() }, frame)?;
    if surface.material_of.len() != surface.triangles.len() {
        return Err(Error::Image(format!(
            "{} triangles but {} materials named",
            surface.triangles.len(),
            surface.material_of.len()
        )));
    }
    if let Some(m) = surface.material_of.iter().flatten().find(|&&m| m as usize >= surface.materials.len()) {
        return Err(Error::Image(format!("a triangle names material {m} of {}", surface.materials.len())));
    }
    if let Some(k) = surface.materials.iter().filter_map(|m| m.texture).find(|&k| k >= surface.textures.len()) {
        return Err(Error::Image(format!("a material names texture {k} of {}", surface.textures.len())));
    }
    let textured = surface.materials.iter().any(|m| m.texture.is_some());
    if textured && surface.uv0.len() != frame.positions.len() {
        return Err(Error::Image(format!(
            "a textured material, and {} uvs for {} points",
            surface.uv0.len(),
            frame.positions.len()
        )));
    }
    Ok(())
}

/// Texels from their samples, then the empty texels' colours filled in.
fn resolve(side: u32, depth: &[f32], colour: &[[f32; 3]], normal: &[[f32; 3]], size: f32) -> ImpostorCell {
    let n = side as usize;
    let s = SAMPLES as usize;
    let fine = n * s;
    let mut out_colour = vec![0u8; n * n * 4];
    let mut out_normal = vec![0u8; n * n * 4];
    let mut filled = vec![false; n * n];
    for y in 0..n {
        for x in 0..n {
            let (mut covered, mut c, mut m, mut near) = (0u32, [0.0f32; 3], [0.0f32; 3], NOTHING);
            for sy in 0..s {
                for sx in 0..s {
                    let slot = (y * s + sy) * fine + x * s + sx;
                    if depth[slot] == NOTHING {
                        continue;
                    }
                    covered += 1;
                    for k in 0..3 {
                        c[k] += colour[slot][k];
                        m[k] += normal[slot][k];
                    }
                    near = near.max(depth[slot]);
                }
            }
            if covered == 0 {
                continue;
            }
            let at = (y * n + x) * 4;
            let total = (s * s) as f32;
            let alpha = (covered as f32 / total * 255.0).round() as u8;
            let c = c.map(|v| linear_to_srgb(v / covered as f32));
            out_colour[at..at + 4].copy_from_slice(&[c[0], c[1], c[2], alpha]);
            let length = (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).sqrt();
            let m = if length > 1e-12 && length.is_finite() { m.map(|v| v / length) } else { [0.0, 0.0, 0.0] };
            let unit = |v: f32| ((v * 0.5 + 0.5).clamp(0.0, 1.0) * 255.0).round() as u8;
            let d = unit(2.0 * near / size);
            out_normal[at..at + 4].copy_from_slice(&[unit(m[0]), unit(m[1]), unit(m[2]), d]);
            filled[at / 4] = true;
        }
    }
    dilate(n, &mut filled, &mut out_colour, &mut out_normal);
    ImpostorCell { side, colour: out_colour, normal: out_normal }
}

/// Fills every uncovered texel's colour (RGB of both pictures, the normal's depth
/// too; never the colour's alpha) with the mean of its filled 8-neighbours, ring by
/// ring outward from the silhouette, until the cell is full. A cell with nothing on it
/// stays zero.
fn dilate(n: usize, filled: &mut [bool], colour: &mut [u8], normal: &mut [u8]) {
    if !filled.iter().any(|&f| f) {
        return;
    }
    loop {
        let before = filled.to_vec();
        let mut grew = false;
        for y in 0..n {
            for x in 0..n {
                if before[y * n + x] {
                    continue;
                }
                let (mut count, mut c, mut m) = (0u32, [0u32; 3], [0u32; 4]);
                for (dx, dy) in [(-1i64, -1i64), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= n as i64 || ny >= n as i64 || !before[ny as usize * n + nx as usize] {
                        continue;
                    }
                    let at = (ny as usize * n + nx as usize) * 4;
                    count += 1;
                    for k in 0..3 {
                        c[k] += u32::from(colour[at + k]);
                    }
                    for k in 0..4 {
                        m[k] += u32::from(normal[at + k]);
                    }
                }
                if count == 0 {
                    continue;
                }
                let at = (y * n + x) * 4;
                let mean = |sum: u32| ((sum + count / 2) / count) as u8;
                for k in 0..3 {
                    colour[at + k] = mean(c[k]);
                }
                for k in 0..4 {
                    normal[at + k] = mean(m[k]);
                }
                filled[y * n + x] = true;
                grew = true;
            }
        }
        if !grew {
            return;
        }
    }
}

/// The linear value of an sRGB-encoded byte.
pub fn srgb_to_linear(byte: u8) -> f32 {
    let c = f32::from(byte) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// The sRGB-encoded byte of a linear value (clamped to `[0, 1]`).
pub fn linear_to_srgb(value: f32) -> u8 {
    let v = if value.is_finite() { value.clamp(0.0, 1.0) } else { 0.0 };
    let c = if v <= 0.003_130_8 { v * 12.92 } else { 1.055 * v.powf(1.0 / 2.4) - 0.055 };
    (c * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    type Square = ([[f32; 3]; 4], [[f32; 3]; 4], Vec<[f32; 2]>);

    fn square(uv0: &[[f32; 2]]) -> Square {
        let positions = [[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]];
        (positions, [[0.0, 0.0, 1.0]; 4], uv0.to_vec())
    }

    #[test]
    fn uvs_are_sampled_where_the_surface_is_even_when_it_is_slanted() {
        // A 4 × 1 texture of four colours across u; the square spans u 0..1 left to right.
        let colours = [[255u8, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]];
        let texture = Texture { width: 4, height: 1, pixels: colours.concat(), wrap: [Wrap::Clamp, Wrap::Clamp] };
        let (positions, normals, uv0) = square(&[[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]);
        let materials = [Material { texture: Some(0), ..Material::default() }];
        let surface = Surface {
            triangles: &[[0, 1, 2], [0, 2, 3]],
            material_of: &[Some(0), Some(0)],
            uv0: &uv0,
            materials: &materials,
            textures: std::slice::from_ref(&texture),
        };
        // Seen from 60° to the side the square is half as wide, and each quarter of it
        // still shows its own colour at its centre: the uv follows the surface.
        let camera = CellCamera { azimuth: 60f32.to_radians(), elevation: 0.0, pivot: [0.0; 3], size: 2.0 };
        let side = 16;
        let cell = render_cell(&surface, Frame { positions: &positions, normals: &normals }, &camera, side).unwrap();
        let row = 8usize;
        let covered: Vec<usize> = (0..16).filter(|&x| cell.colour[(row * 16 + x) * 4 + 3] == 255).collect();
        assert_eq!(covered, (4..12).collect::<Vec<_>>());
        let rgb = |x: usize| &cell.colour[(row * 16 + x) * 4..][..3];
        assert_eq!(rgb(4), [255, 0, 0]);
        // Texel 7 is centred at u = 7/16: a quarter of the way from green's centre to blue's, in linear light.
        assert_eq!(rgb(7), [0, linear_to_srgb(0.75), linear_to_srgb(0.25)]);
        assert_eq!(rgb(11), [255, 255, 255]);
        // The normal faces the camera's side: +Z of the model, as (n + 1) / 2.
        assert_eq!(&cell.normal[(row * 16 + 8) * 4..][..3], [128, 128, 255]);
    }

    #[test]
    fn edges_are_partly_covered_and_the_colour_is_dilated_not_black() {
        let (positions, normals, _) = square(&[]);
        let materials = [Material { factor: [0.2, 0.5, 1.0, 1.0], ..Material::default() }];
        let surface = Surface {
            triangles: &[[0, 1, 2], [0, 2, 3]],
            material_of: &[Some(0), Some(0)],
            uv0: &[],
            materials: &materials,
            textures: &[],
        };
        // The square spans 2 of 3.5 units: its edges fall inside texels.
        let camera = CellCamera { azimuth: 0.0, elevation: 0.0, pivot: [0.0; 3], size: 3.5 };
        let cell = render_cell(&surface, Frame { positions: &positions, normals: &normals }, &camera, 7).unwrap();
        let alphas: Vec<u8> = (0..7).map(|x| cell.colour[(3 * 7 + x) * 4 + 3]).collect();
        assert_eq!(alphas, [0, 128, 255, 255, 255, 128, 0]);
        // A corner texel: a quarter covered.
        assert_eq!(cell.colour[(7 + 1) * 4 + 3], 64);
        let expected = [linear_to_srgb(0.2), linear_to_srgb(0.5), 255];
        for texel in cell.colour.chunks_exact(4) {
            assert_eq!(texel[..3], expected);
        }
    }

    #[test]
    fn bad_references_are_errors_not_panics() {
        let (positions, normals, _) = square(&[]);
        let frame = Frame { positions: &positions, normals: &normals };
        let camera = CellCamera { azimuth: 0.0, elevation: 0.0, pivot: [0.0; 3], size: 2.0 };
        let textured = [Material { texture: Some(0), ..Material::default() }];
        let surface =
            Surface { triangles: &[[0, 1, 2]], material_of: &[Some(0)], uv0: &[], materials: &textured, textures: &[] };
        assert_eq!(
            render_cell(&surface, frame, &camera, 4).unwrap_err().to_string(),
            "image: a material names texture 0 of 0"
        );
        let surface =
            Surface { triangles: &[[0, 1, 2]], material_of: &[Some(3)], uv0: &[], materials: &[], textures: &[] };
        assert_eq!(
            render_cell(&surface, frame, &camera, 4).unwrap_err().to_string(),
            "image: a triangle names material 3 of 0"
        );
        assert!(Texture::decode(b"GIF89a").is_err());
    }

    #[test]
    fn srgb_round_trips_every_byte() {
        for byte in 0..=255u8 {
            assert_eq!(linear_to_srgb(srgb_to_linear(byte)), byte);
        }
    }
}
