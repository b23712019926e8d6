//! The camera and the triangle rasterizer.

use crate::types::{check_size, Bounds, Error, Frame, Image, Mesh, View};

/// Background of a frame.
pub(crate) const BACKGROUND: [u8; 4] = [255, 255, 255, 255];
/// The bounds' outline.
pub(crate) const BOUNDS_LINE: [u8; 4] = [214, 214, 214, 255];
/// The ground (y = 0) in the front and side views, the axes through the origin on top.
pub(crate) const GROUND_LINE: [u8; 4] = [160, 160, 160, 255];
/// The surface colour at full light; shaded pixels are this times the light.
const SURFACE: [f32; 3] = [70.0, 125.0, 200.0];
/// Light that reaches every surface, as a fraction of full light.
const AMBIENT: f32 = 0.3;
/// Direction toward the light, in view space (x right, y up, z toward the viewer):
/// from above, to the left, in front. Unit length.
const LIGHT: [f32; 3] = [-0.408_248_3, 0.408_248_3, 0.816_496_6];
/// How much darker the far side of the framed box is drawn than the near side (a depth
/// cue that separates overlapping parts facing the same way).
const DEPTH_CUE: f32 = 0.3;
/// Space left around the framed bounds, as a fraction of the frame's smaller side.
const MARGIN: f32 = 0.06;
/// Sub-pixel steps per pixel of the fixed-point vertex positions.
pub(crate) const SUBPIXEL: f32 = 256.0;
/// Vertices farther than this from the picture, in pixels, drop their triangle (so that
/// fixed-point products cannot overflow).
const FAR: f32 = 1.0e6;

/// An orthographic camera that frames a box: the same one for every frame of a sheet.
///
/// Picture coordinates are in pixels, x to the right and y down from the top-left
/// corner; a pixel's centre is at `(x + 0.5, y + 0.5)`. The depth grows toward the
/// viewer.
///
/// ```
/// use vat_preview::{Bounds, Camera, View};
/// let bounds = Bounds { min: [-1.0, 0.0, -1.0], max: [1.0, 2.0, 1.0] };
/// let camera = Camera::framing(&bounds, View::Front, 100, 100)?;
/// // The box's centre lands in the middle of the picture.
/// assert_eq!(camera.project([0.0, 1.0, 0.0]), [50.0, 50.0, 0.0]);
/// # Ok::<(), vat_preview::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Which way it looks.
    pub view: View,
    /// Pixels per model unit.
    pub scale: f32,
    /// Picture x of the view's horizontal coordinate 0.
    pub origin_x: f32,
    /// Picture y of the view's vertical coordinate 0.
    pub origin_y: f32,
    /// Depth of the framed box's farthest face: surfaces there are drawn darkest.
    pub depth_far: f32,
    /// Depth of the framed box's nearest face: surfaces there are drawn in full light.
    pub depth_near: f32,
}

/// A model-space vector in the view's axes: (right, up, toward the viewer).
fn to_view(view: View, p: [f32; 3]) -> [f32; 3] {
    match view {
        View::Front => [p[0], p[1], p[2]],
        View::Side => [-p[2], p[1], p[0]],
        View::Top => [p[0], -p[2], p[1]],
    }
}

impl Camera {
    /// The camera of `view` that fits `bounds` into a `width × height` picture, centred,
    /// with a small margin and the same scale on both axes. A box that is flat (or a
    /// point) on the picture's plane is drawn at the scale its other side allows (or one
    /// pixel per unit).
    pub fn framing(bounds: &Bounds, view: View, width: u32, height: u32) -> Result<Camera, Error> {
        bounds.check()?;
        check_size(width as u64, height as u64)?;
        let a = to_view(view, bounds.min);
        let b = to_view(view, bounds.max);
        let (u0, u1) = (a[0].min(b[0]), a[0].max(b[0]));
        let (v0, v1) = (a[1].min(b[1]), a[1].max(b[1]));
        let (w, h) = (width as f32, height as f32);
        let margin = (w.min(h) * MARGIN).max(1.0);
        let (room_u, room_v) = ((w - 2.0 * margin).max(1.0), (h - 2.0 * margin).max(1.0));
        let (extent_u, extent_v) = (u1 - u0, v1 - v0);
        let fits = |room: f32, extent: f32| if extent > 0.0 { room / extent } else { f32::INFINITY };
        let mut scale = fits(room_u, extent_u).min(fits(room_v, extent_v));
        if !(scale.is_finite() && scale > 0.0) {
            scale = 1.0;
        }
        Ok(Camera {
            view,
            scale,
            origin_x: w / 2.0 - (u0 + u1) / 2.0 * scale,
            origin_y: h / 2.0 + (v0 + v1) / 2.0 * scale,
            depth_far: a[2].min(b[2]),
            depth_near: a[2].max(b[2]),
        })
    }

    /// A model-space point to `[picture x, picture y, depth]` (depth in model units,
    /// larger nearer).
    pub fn project(&self, p: [f32; 3]) -> [f32; 3] {
        let [u, v, d] = to_view(self.view, p);
        [self.origin_x + u * self.scale, self.origin_y - v * self.scale, d]
    }
}

/// Draws one frame: a white picture with the bounds' outline and the ground line (or,
/// from the top, the axes through the origin) in light grey, and the mesh over them,
/// depth-tested and shaded.
///
/// Triangles with a non-finite corner are left out; an empty mesh gives an empty frame.
/// Errors when the frame has not one normal per position, a triangle names a missing
/// point, the bounds are not a box, or the size is out of range.
///
/// ```
/// use vat_preview::{render_frame, Bounds, Frame, Mesh, View};
/// let bounds = Bounds { min: [0.0; 3], max: [1.0; 3] };
/// let image = render_frame(&Mesh::default(), Frame { positions: &[], normals: &[] }, &bounds, View::Top, 8, 8)?;
/// assert_eq!(image.pixels.len(), 8 * 8 * 4);
/// # Ok::<(), vat_preview::Error>(())
/// ```
pub fn render_frame(
    mesh: &Mesh,
    frame: Frame<'_>,
    bounds: &Bounds,
    view: View,
    width: u32,
    height: u32,
) -> Result<Image, Error> {
    let camera = Camera::framing(bounds, view, width, height)?;
    check_frame(mesh, frame)?;
    let mut image = Image::filled(width, height, BACKGROUND)?;
    draw_guides(&mut image, &camera, bounds);
    rasterize(&mut image, &camera, mesh, frame);
    Ok(image)
}

/// Errors unless the frame has one normal per position and every index is a point.
pub(crate) fn check_frame(mesh: &Mesh, frame: Frame<'_>) -> Result<(), Error> {
    let points = frame.positions.len();
    if frame.normals.len() != points {
        return Err(Error::NormalCount { positions: points, normals: frame.normals.len() });
    }
    for (triangle, corners) in mesh.triangles.iter().enumerate() {
        if let Some(&index) = corners.iter().find(|&&i| i as usize >= points) {
            return Err(Error::IndexOutOfRange { triangle, index, points });
        }
    }
    Ok(())
}

/// The bounds' outline and the ground (or origin) lines.
pub(crate) fn draw_guides(image: &mut Image, camera: &Camera, bounds: &Bounds) {
    let a = camera.project(bounds.min);
    let b = camera.project(bounds.max);
    let x0 = a[0].min(b[0]).round() as i64;
    let x1 = (a[0].max(b[0]).round() as i64 - 1).max(x0);
    let y0 = a[1].min(b[1]).round() as i64;
    let y1 = (a[1].max(b[1]).round() as i64 - 1).max(y0);
    let (w, h) = (image.width as i64, image.height as i64);
    match camera.view {
        View::Front | View::Side => {
            let ground = camera.project([0.0; 3])[1].round() as i64;
            if (0..h).contains(&ground) {
                image.fill_rect(0, ground, w, 1, GROUND_LINE);
            }
        }
        View::Top => {
            let [ox, oy, _] = camera.project([0.0; 3]);
            let (ox, oy) = (ox.round() as i64, oy.round() as i64);
            if (0..w).contains(&ox) {
                image.fill_rect(ox, 0, 1, h, GROUND_LINE);
            }
            if (0..h).contains(&oy) {
                image.fill_rect(0, oy, w, 1, GROUND_LINE);
            }
        }
    }
    for (x, y, rw, rh) in
        [(x0, y0, x1 - x0 + 1, 1), (x0, y1, x1 - x0 + 1, 1), (x0, y0, 1, y1 - y0 + 1), (x1, y0, 1, y1 - y0 + 1)]
    {
        image.fill_rect(x, y, rw, rh, BOUNDS_LINE);
    }
}

/// A projected corner: fixed-point picture position, depth and view-space normal.
#[derive(Clone, Copy)]
struct Corner {
    x: i64,
    y: i64,
    depth: f32,
    normal: [f32; 3],
}

fn corner(camera: &Camera, frame: Frame<'_>, index: u32) -> Option<Corner> {
    let [x, y, depth] = camera.project(frame.positions[index as usize]);
    let near = |c: f32| c.is_finite() && c.abs() < FAR;
    if !(near(x) && near(y) && depth.is_finite()) {
        return None;
    }
    Some(Corner {
        x: (x * SUBPIXEL).round() as i64,
        y: (y * SUBPIXEL).round() as i64,
        depth,
        normal: to_view(camera.view, frame.normals[index as usize]),
    })
}

/// Twice the signed area of (a, b, p), in fixed-point units: positive when p lies on the
/// inner side of a → b for a triangle wound clockwise on the picture (y down).
fn edge(a: (i64, i64), b: (i64, i64), p: (i64, i64)) -> i64 {
    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
}

/// Whether an edge a → b of a clockwise (on the picture) triangle is a top or a left
/// edge: pixel centres exactly on it belong to this triangle, so that two triangles
/// sharing the edge never both draw (nor both miss) a pixel.
fn top_left(a: (i64, i64), b: (i64, i64)) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    (dy == 0 && dx > 0) || dy < 0
}

/// The shaded colour of a surface with view-space normal `n`, lit from both sides, at
/// `nearness` (0 on the framed box's far side, 1 on its near side; clamped).
fn shade(n: [f32; 3], nearness: f32) -> [u8; 4] {
    let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    let n = if length.is_finite() && length > 1e-12 { n.map(|c| c / length) } else { [0.0, 0.0, 1.0] };
    // Two-sided: a normal facing away is turned toward the viewer.
    let n = if n[2] < 0.0 { n.map(|c| -c) } else { n };
    let diffuse = (n[0] * LIGHT[0] + n[1] * LIGHT[1] + n[2] * LIGHT[2]).max(0.0);
    let nearness = if nearness >= 0.0 { nearness.min(1.0) } else { 0.0 };
    let cue = 1.0 - DEPTH_CUE * (1.0 - nearness);
    let light = (AMBIENT + (1.0 - AMBIENT) * diffuse) * cue;
    let c = SURFACE.map(|s| (s * light).round().clamp(0.0, 255.0) as u8);
    [c[0], c[1], c[2], 255]
}

/// Draws every triangle of the mesh with a depth test, in mesh order (on equal depth
/// the first triangle drawn stays).
pub(crate) fn rasterize(image: &mut Image, camera: &Camera, mesh: &Mesh, frame: Frame<'_>) {
    let (w, h) = (image.width as i64, image.height as i64);
    let mut depth = vec![f32::NEG_INFINITY; (w * h) as usize];
    let depth_range = camera.depth_near - camera.depth_far;
    let nearness = |z: f32| if depth_range > 0.0 { (z - camera.depth_far) / depth_range } else { 1.0 };
    for triangle in &mesh.triangles {
        let Some(c) = triangle.iter().map(|&i| corner(camera, frame, i)).collect::<Option<Vec<_>>>() else {
            continue;
        };
        cover([(c[0].x, c[0].y), (c[1].x, c[1].y), (c[2].x, c[2].y)], w, h, |x, y, l| {
            let z = l[0] * c[0].depth + l[1] * c[1].depth + l[2] * c[2].depth;
            let slot = (y * w + x) as usize;
            // z is finite: every corner's depth is, and the weights are.
            if z <= depth[slot] {
                return;
            }
            depth[slot] = z;
            let n = std::array::from_fn(|k| l[0] * c[0].normal[k] + l[1] * c[1].normal[k] + l[2] * c[2].normal[k]);
            image.put(x, y, shade(n, nearness(z)));
        });
    }
}

/// Calls `visit(x, y, weights)` for every pixel of a `w × h` picture whose centre a
/// triangle covers, corners in fixed-point picture units ([`SUBPIXEL`] steps per pixel),
/// either winding. The weights are the barycentric weights of the corners in the order
/// given. Pixel centres exactly on a shared edge go to one of the two triangles only
/// (the top-left rule); a triangle of no area covers nothing.
///
/// Under an orthographic projection (every camera here), weights in the picture are
/// the weights on the surface: attributes interpolated with them (normals, uvs) are
/// perspective-correct as they are.
pub(crate) fn cover(corners: [(i64, i64); 3], w: i64, h: i64, mut visit: impl FnMut(i64, i64, [f32; 3])) {
    let step = SUBPIXEL as i64;
    let mut p = corners;
    let mut area = edge(p[0], p[1], p[2]);
    if area == 0 {
        return;
    }
    // Clockwise on the picture: swap two corners, and their weights back on the way out.
    let swapped = area < 0;
    if swapped {
        p.swap(1, 2);
        area = -area;
    }
    let edges = [(p[1], p[2]), (p[2], p[0]), (p[0], p[1])];
    let inclusive = edges.map(|(a, b)| top_left(a, b));
    // Pixels whose centre may be inside, clipped to the picture.
    let min_x = p.iter().map(|q| q.0).min().unwrap_or(0).div_euclid(step).max(0);
    let max_x = p.iter().map(|q| q.0).max().unwrap_or(0).div_euclid(step).min(w - 1);
    let min_y = p.iter().map(|q| q.1).min().unwrap_or(0).div_euclid(step).max(0);
    let max_y = p.iter().map(|q| q.1).max().unwrap_or(0).div_euclid(step).min(h - 1);
    let area_f = area as f64;
    for y in min_y..=max_y {
        for x in min_x..=max_x {
            let centre = (x * step + step / 2, y * step + step / 2);
            let weights = edges.map(|(a, b)| edge(a, b, centre));
            if (0..3).any(|i| weights[i] < 0 || (weights[i] == 0 && !inclusive[i])) {
                continue;
            }
            let l = weights.map(|e| (e as f64 / area_f) as f32);
            visit(x, y, if swapped { [l[0], l[2], l[1]] } else { l });
        }
    }
}

/// A position in pixels as the fixed-point units [`cover`] takes, or `None` when it is
/// not finite or too far from the picture for the products to fit.
pub(crate) fn fixed(x: f32, y: f32) -> Option<(i64, i64)> {
    let near = |c: f32| c.is_finite() && c.abs() < FAR;
    (near(x) && near(y)).then(|| ((x * SUBPIXEL).round() as i64, (y * SUBPIXEL).round() as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_keep_the_stated_axes() {
        let bounds = Bounds { min: [-1.0; 3], max: [1.0; 3] };
        let front = Camera::framing(&bounds, View::Front, 100, 100).unwrap();
        let side = Camera::framing(&bounds, View::Side, 100, 100).unwrap();
        let top = Camera::framing(&bounds, View::Top, 100, 100).unwrap();
        // +X right and +Y up from the front; +Z toward the viewer.
        assert!(front.project([1.0, 0.0, 0.0])[0] > 50.0);
        assert!(front.project([0.0, 1.0, 0.0])[1] < 50.0);
        assert_eq!(front.project([0.0, 0.0, 1.0])[2], 1.0);
        // From +X: +Z to the left, +X nearest.
        assert!(side.project([0.0, 0.0, 1.0])[0] < 50.0);
        assert_eq!(side.project([1.0, 0.0, 0.0])[2], 1.0);
        // From above: +Z down the picture, +Y nearest.
        assert!(top.project([0.0, 0.0, 1.0])[1] > 50.0);
        assert_eq!(top.project([0.0, 1.0, 0.0])[2], 1.0);
    }

    #[test]
    fn framing_fits_the_longer_side_with_the_margin() {
        let bounds = Bounds { min: [0.0, 0.0, 0.0], max: [1.0, 4.0, 1.0] };
        let camera = Camera::framing(&bounds, View::Front, 200, 100).unwrap();
        // Room is 100 - 2 × 6 = 88 pixels for 4 units.
        assert_eq!(camera.scale, 22.0);
        assert_eq!(camera.project([0.0, 4.0, 0.0])[1], 6.0);
        assert_eq!(camera.project([0.0, 0.0, 0.0])[1], 94.0);
    }

    #[test]
    fn shading_is_two_sided_and_lit_from_the_light() {
        assert_eq!(shade([0.0, 0.0, 1.0], 1.0), shade([0.0, 0.0, -1.0], 1.0));
        assert_eq!(shade(LIGHT, 1.0), [70, 125, 200, 255]);
        // Facing straight away from the light's side, only the ambient share.
        assert_eq!(shade([1.0, -1.0, 0.0], 1.0), [21, 38, 60, 255]);
        // No direction: drawn as facing the viewer, not black nor NaN.
        assert_eq!(shade([f32::NAN, 0.0, 0.0], 1.0), shade([0.0, 0.0, 1.0], 1.0));
        // The far side is 30 % darker; beyond the box no darker still.
        assert_eq!(shade(LIGHT, 0.0), [49, 88, 140, 255]);
        assert_eq!(shade(LIGHT, -5.0), shade(LIGHT, 0.0));
        assert_eq!(shade(LIGHT, f32::NAN), shade(LIGHT, 0.0));
    }

    #[test]
    fn shared_edges_draw_each_pixel_once() {
        // A square of two triangles covering pixel centres exactly on the diagonal.
        let mut image = Image::filled(8, 8, BACKGROUND).unwrap();
        let camera =
            Camera { view: View::Front, scale: 1.0, origin_x: 0.0, origin_y: 8.0, depth_far: 0.0, depth_near: 0.0 };
        let positions = [[0.5, 0.5, 0.0], [6.5, 0.5, 0.0], [6.5, 6.5, 0.0], [0.5, 6.5, 0.0]];
        let normals = [[0.0, 0.0, 1.0]; 4];
        let mesh = Mesh { triangles: vec![[0, 1, 2], [0, 2, 3]] };
        rasterize(&mut image, &camera, &mesh, Frame { positions: &positions, normals: &normals });
        let drawn = image.pixels.chunks(4).filter(|p| p != &BACKGROUND).count();
        // Centres from 0.5 to 6.5 inclusive on the left/top, exclusive on the right/bottom.
        assert_eq!(drawn, 36);
    }
}
