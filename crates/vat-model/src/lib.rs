//! Plain data shared by the vatbake stages.
//!
//! The bake is a straight line: load → clips → decimate → evaluate → bounds → measure → pack →
//! encode → write (docs/ARCHITECTURE.md).
//! The stages meet only in these types: a [`Model`] (points, triangles, node
//! hierarchy, skins, morph targets, clips) comes out of the loader, [`ClipRows`]
//! says when each row of a clip is sampled, and the [`Layout`] says, in one place,
//! which texel holds which point on which row. [`Frames`] (one position and normal
//! per point per row, as floats) are for tests and tools; the bake itself evaluates
//! rows straight into texels.
//!
//! This crate does no I/O and no maths beyond the layout and row arithmetic.
//!
//! Dependencies: `glam` (vectors, matrices) and `serde_json` (the carried material
//! JSON), nothing else. It must not depend on any other crate of the workspace:
//! every stage depends on it, so it depends on none of them.
//!
//! ```
//! use vat_model::Layout;
//! // 10,000 points wrapped at 4,096 columns: three bands of 120 rows each.
//! let layout = Layout::new(10_000, 120, 4096);
//! assert_eq!((layout.width, layout.height, layout.bands), (3334, 360, 3));
//! assert_eq!(layout.texel(5000, 7), (5000 - 3334, 120 + 7));
//! ```

#![warn(missing_docs)]

pub mod named;
use glam::{Mat4, Quat, Vec2, Vec3};

/// Most joint influences kept per point (JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1).
pub const MAX_INFLUENCES: usize = 8;

/// The normal of a point whose normal has no direction (a zero normal from the
/// source, or a transform that flattens it away): +Y, never NaN. The loader, the
/// evaluation and the texture's normal encoding all use it.
pub const DEGENERATE_NORMAL: Vec3 = Vec3::Y;

/// A loaded, dequantized, decompressed model: everything the bake needs, as floats.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Every node of the document, indexed as in the source file.
    pub nodes: Vec<Node>,
    /// Root nodes of the scene being baked, in scene order.
    pub scene_roots: Vec<usize>,
    /// Skins of the document, indexed as in the source file.
    pub skins: Vec<Skin>,
    /// One entry per (mesh node, primitive), in scene pre-order. Each owns a
    /// contiguous run of points and of triangles.
    pub parts: Vec<Part>,
    /// All points of all parts, concatenated in part order.
    pub points: Points,
    /// Triangles as indices into `points`, concatenated in part order.
    pub triangles: Vec<[u32; 3]>,
    /// Animation clips, in source order (merged takes count once).
    pub clips: Vec<Clip>,
    /// Materials, textures, images and samplers, carried through to the rest mesh.
    pub materials: MaterialSet,
}

/// A node of the scene graph with its rest (unanimated) local transform.
#[derive(Clone, Debug)]
pub struct Node {
    /// The node's name in the source, if it has one.
    pub name: Option<String>,
    /// Index of the parent node; `None` for a root.
    pub parent: Option<usize>,
    /// Indices of the child nodes, in source order.
    pub children: Vec<usize>,
    /// The local transform when no clip animates the node.
    pub rest: Local,
    /// Default morph weights of the mesh on this node (node `weights`, else mesh `weights`).
    pub morph_weights: Vec<f32>,
}

/// A node's local transform. Matrix nodes cannot be animated (glTF 2.0 §5.25).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Local {
    /// Translation, rotation and scale; clips may animate each.
    Trs(Trs),
    /// A fixed column-major matrix from the source.
    Matrix(Mat4),
}

/// A decomposed local transform, applied as scale, then rotation, then translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    /// Translation in the parent's units.
    pub translation: Vec3,
    /// Unit quaternion.
    pub rotation: Quat,
    /// Per-axis scale factors.
    pub scale: Vec3,
}

impl Default for Trs {
    fn default() -> Self {
        Trs { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE }
    }
}

impl Trs {
    /// The transform as a matrix: `T · R · S`.
    ///
    /// ```
    /// use glam::{Mat4, Vec3};
    /// let trs = vat_model::Trs { translation: Vec3::X, ..Default::default() };
    /// assert_eq!(trs.matrix(), Mat4::from_translation(Vec3::X));
    /// ```
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

impl Local {
    /// The transform as a matrix, whichever form it is stored in.
    pub fn matrix(&self) -> Mat4 {
        match self {
            Local::Trs(trs) => trs.matrix(),
            Local::Matrix(m) => *m,
        }
    }
}

/// A skin: its joints (node indices) and their inverse bind matrices.
#[derive(Clone, Debug)]
pub struct Skin {
    /// The skin's name in the source, if it has one.
    pub name: Option<String>,
    /// Node index of each joint; `Points::joints` index into this list.
    pub joints: Vec<usize>,
    /// One per joint; identity where the source gives none.
    pub inverse_bind: Vec<Mat4>,
    /// The skin's `skeleton` node (the root of its joint hierarchy), when the source names one.
    pub skeleton: Option<usize>,
}

/// One primitive of one mesh instance.
#[derive(Clone, Debug)]
pub struct Part {
    /// The node that holds the mesh.
    pub node: usize,
    /// Index of the mesh in the source.
    pub mesh: usize,
    /// Index of the primitive within its mesh.
    pub primitive: usize,
    /// Index into `MaterialSet::materials`, if the primitive has a material.
    pub material: Option<usize>,
    /// Index into `Model::skins`, if the node is skinned.
    pub skin: Option<usize>,
    /// Range into `Model::points`.
    pub first_point: usize,
    /// Number of points the part owns.
    pub point_count: usize,
    /// Range into `Model::triangles`.
    pub first_triangle: usize,
    /// Number of triangles the part owns.
    pub triangle_count: usize,
    /// Morph target deltas for this part's points (`point_count` each).
    pub morph_targets: Vec<MorphTarget>,
}

impl Part {
    /// The part's points as a range into `Model::points`.
    pub fn points(&self) -> std::ops::Range<usize> {
        self.first_point..self.first_point + self.point_count
    }
    /// The part's triangles as a range into `Model::triangles`.
    pub fn triangles(&self) -> std::ops::Range<usize> {
        self.first_triangle..self.first_triangle + self.triangle_count
    }
}

/// One morph target of a part: deltas added to its points, scaled by the target's weight.
#[derive(Clone, Debug, Default)]
pub struct MorphTarget {
    /// Position deltas, one per point of the part.
    pub positions: Vec<Vec3>,
    /// Empty when the target moves no normals.
    pub normals: Vec<Vec3>,
}

/// Per-point attributes as structure of arrays; every vector has one entry per point.
#[derive(Clone, Debug, Default)]
pub struct Points {
    /// Bind-space positions (mesh space of their part), as floats.
    pub positions: Vec<Vec3>,
    /// Unit normals; computed from triangles where the source has none.
    pub normals: Vec<Vec3>,
    /// TEXCOORD_0, or zero where the part has none.
    pub uv0: Vec<Vec2>,
    /// Joint indices into the part's skin, strongest first. Unused slots have weight 0.
    pub joints: Vec<[u16; MAX_INFLUENCES]>,
    /// Weights summing to 1 for skinned points; all zero for unskinned points.
    pub weights: Vec<[f32; MAX_INFLUENCES]>,
}

impl Points {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.positions.len()
    }
    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// Something a stage noticed and worked around, for whoever runs the bake: a
/// stable `code` that scripts match on, one short line of facts, and what to do
/// about it (said once per code, not on every finding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Kebab-case, stable across versions (docs/CLI.md lists them).
    pub code: &'static str,
    /// One line, no file name (the caller knows which file it was about).
    pub message: String,
    /// What the user can do, when there is something to do.
    pub advice: Option<&'static str>,
}

impl Finding {
    /// A finding with no advice.
    ///
    /// ```
    /// let f = vat_model::Finding::new("example-code", "one line of facts").advice("what to do");
    /// assert_eq!((f.code, f.advice), ("example-code", Some("what to do")));
    /// ```
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Finding { code, message: message.into(), advice: None }
    }

    /// The same finding with `advice` set.
    pub fn advice(mut self, advice: &'static str) -> Self {
        self.advice = Some(advice);
        self
    }
}

/// An animation clip as keyframe channels.
#[derive(Clone, Debug)]
pub struct Clip {
    /// The source clip's name, if it has one.
    pub name: Option<String>,
    /// Index of the animation in the source file (the first one, for a merged take).
    pub source_index: usize,
    /// For a take merged from several source animations (an exporter that split one
    /// take into one animation per node): the source index of each, in source order,
    /// `source_index` first. Empty for a clip that is one source animation.
    pub merged_from: Vec<usize>,
    /// The `--animations` file the clip comes from (its index in that list), its
    /// `source_index` that file's; `None` for the model's own.
    pub file: Option<usize>,
    /// The keyframe channels, each driving one property of one node.
    pub channels: Vec<Channel>,
}

impl Clip {
    /// Duration in seconds: the last key time over all channels (0 for a single pose).
    pub fn duration(&self) -> f32 {
        self.channels.iter().filter_map(|c| c.times.last().copied()).fold(0.0, f32::max)
    }

    /// The source name, or `animation_<index>` for an unnamed clip.
    pub fn display_name(&self) -> String {
        match &self.name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("animation_{}", self.source_index),
        }
    }
}

/// Keyframes driving one property of one node.
#[derive(Clone, Debug)]
pub struct Channel {
    /// Index of the animated node.
    pub node: usize,
    /// Which property the keys set.
    pub property: Property,
    /// How values between keys are computed.
    pub interpolation: Interpolation,
    /// Key times in seconds, never decreasing (the loader refuses a key earlier than
    /// the one before it; a repeated time makes a jump to the later key).
    pub times: Vec<f32>,
    /// Flattened key values: `times.len() × width` for STEP/LINEAR, and
    /// `times.len() × 3 × width` (in-tangent, value, out-tangent) for CUBICSPLINE,
    /// where width is 3 (translation, scale), 4 (rotation, x y z w) or the morph
    /// target count (weights).
    pub values: Vec<f32>,
}

/// The node property a channel animates (glTF `target.path`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Property {
    /// `translation`: 3 floats.
    Translation,
    /// `rotation`: a quaternion, 4 floats (x, y, z, w).
    Rotation,
    /// `scale`: 3 floats.
    Scale,
    /// `weights`: one float per morph target.
    Weights,
}

/// Keyframe interpolation (glTF `sampler.interpolation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Hold each key's value until the next key.
    Step,
    /// Linear between keys; spherical linear for rotations.
    Linear,
    /// Cubic Hermite spline with in- and out-tangents per key.
    CubicSpline,
}

/// Source materials and everything they reference, as glTF JSON, plus the bytes
/// of every image so the rest mesh can embed them. Never decoded.
#[derive(Clone, Debug, Default)]
pub struct MaterialSet {
    /// Material JSON objects, in source order.
    pub materials: Vec<serde_json::Value>,
    /// Texture JSON objects, in source order.
    pub textures: Vec<serde_json::Value>,
    /// Sampler JSON objects, in source order.
    pub samplers: Vec<serde_json::Value>,
    /// Image JSON objects with `uri`/`bufferView` removed; bytes in `image_data`.
    pub images: Vec<serde_json::Value>,
    /// The encoded bytes of each image, one per entry of `images`.
    pub image_data: Vec<ImageData>,
    /// Extensions the carried JSON uses (for `extensionsUsed`).
    pub extensions_used: Vec<String>,
    /// Those of them the source also listed as required.
    pub extensions_required: Vec<String>,
}

/// An image's encoded file bytes, as in the source (PNG, JPEG, ...).
#[derive(Clone, Debug)]
pub struct ImageData {
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// The image file's bytes, never decoded.
    pub bytes: Vec<u8>,
}

/// Evaluated positions and normals: `rows × points`, row-major.
#[derive(Clone, Debug, Default)]
pub struct Frames {
    /// Points per row.
    pub points: usize,
    /// Number of rows (sample times).
    pub rows: usize,
    /// Positions in model units, `rows × points`.
    pub positions: Vec<Vec3>,
    /// Unit normals, `rows × points`.
    pub normals: Vec<Vec3>,
}

impl Frames {
    /// Zero-filled frames for `points` points on `rows` rows.
    ///
    /// ```
    /// let frames = vat_model::Frames::new(3, 2);
    /// assert_eq!(frames.row_positions(1).len(), 3);
    /// ```
    pub fn new(points: usize, rows: usize) -> Self {
        Frames { points, rows, positions: vec![Vec3::ZERO; points * rows], normals: vec![Vec3::ZERO; points * rows] }
    }
    /// The positions of every point on one row.
    pub fn row_positions(&self, row: usize) -> &[Vec3] {
        &self.positions[row * self.points..(row + 1) * self.points]
    }
    /// The normals of every point on one row.
    pub fn row_normals(&self, row: usize) -> &[Vec3] {
        &self.normals[row * self.points..(row + 1) * self.points]
    }
}

/// Where each point and row lands in the texture: the one definition of the layout.
///
/// Point `i` on global row `r` is at column `i % width`, image row
/// `(i / width) * rows + r`. With `points <= max_width` there is one band and the
/// image is `points × rows`. More points wrap into the fewest bands that fit
/// `max_width`, and the columns are shared evenly between them
/// (`width = ceil(points / bands)`), so the last band is at most `bands − 1`
/// columns short instead of nearly empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Points in the model: one column each.
    pub points: usize,
    /// Rows of all clips stacked: the height of one band.
    pub rows: usize,
    /// Image width in texels.
    pub width: usize,
    /// Number of bands the points are wrapped into (≥ 1).
    pub bands: usize,
    /// Image height in texels: `bands × rows`.
    pub height: usize,
}

impl Layout {
    /// The layout of `points` points on `rows` rows, at most `max_width` columns wide
    /// (a `max_width` of 0 counts as 1).
    ///
    /// ```
    /// let layout = vat_model::Layout::new(5, 4, 2);
    /// assert_eq!((layout.width, layout.bands, layout.height), (2, 3, 12));
    /// ```
    pub fn new(points: usize, rows: usize, max_width: usize) -> Self {
        let max_width = max_width.max(1);
        let bands = points.div_ceil(max_width).max(1);
        let width = points.div_ceil(bands).max(1);
        Layout { points, rows, width, bands, height: bands.saturating_mul(rows) }
    }

    /// Texels in the image: `width × height`.
    pub fn texels(&self) -> usize {
        self.width * self.height
    }

    /// Texel (x, y) of a point on a global row; y counts down from the top.
    pub fn texel(&self, point: usize, row: usize) -> (usize, usize) {
        (point % self.width, (point / self.width) * self.rows + row)
    }

    /// The band and the global row that image row `y` holds: the inverse of
    /// [`texel`](Layout::texel)'s y.
    ///
    /// ```
    /// let layout = vat_model::Layout::new(10, 31, 4);
    /// assert_eq!(layout.band_and_row(31 + 5), (1, 5));
    /// ```
    pub fn band_and_row(&self, y: usize) -> (usize, usize) {
        (y / self.rows, y % self.rows)
    }

    /// The points whose columns are in `band`: an empty range past the last band.
    pub fn band_points(&self, band: usize) -> std::ops::Range<usize> {
        let first = (band * self.width).min(self.points);
        first..(first + self.width).min(self.points)
    }

    /// TEXCOORD_1 of a point: u in the middle of its column, v at the top edge of
    /// its band. A shader samples row `r` at `v + (r + 0.5) / height`.
    pub fn column_uv(&self, point: usize) -> [f32; 2] {
        let (x, y) = self.texel(point, 0);
        [(x as f32 + 0.5) / self.width as f32, y as f32 / self.height as f32]
    }
}

/// How a clip is sampled into rows: the one definition of the row rule, shared
/// by the bake, the audit and the benchmarks.
///
/// A clip of duration d at `fps` gets `round(d·fps) + 1` rows from t = 0 to
/// t = d, capped by `max_frames` and then resampled evenly. Duration and rate
/// are always > 0 and row k is at time k / rate; a zero-length clip (a single
/// pose) gets one row, rate = fps and duration = 1 / fps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipRows {
    /// Rows of the clip (≥ 1).
    pub rows: u32,
    /// Rows per second.
    pub rate: f32,
    /// Seconds, as recorded in the description: the clip's last key time, which
    /// the last row samples (one frame, `1 / fps`, for a single pose).
    pub duration: f32,
}

impl ClipRows {
    /// The rows of a clip of `duration` seconds sampled at `fps`, at most `max_frames` rows.
    ///
    /// ```
    /// let rows = vat_model::ClipRows::new(1.0, 30.0, None);
    /// assert_eq!((rows.rows, rows.rate), (31, 30.0));
    /// ```
    pub fn new(duration: f32, fps: f32, max_frames: Option<u32>) -> Self {
        if duration <= 0.0 {
            return ClipRows { rows: 1, rate: fps, duration: 1.0 / fps };
        }
        // Saturating: a hostile key time (1e30 s) gives u32::MAX rows, which the texel cap refuses.
        let natural = ((duration as f64 * fps as f64).round() as u64).saturating_add(1);
        let rows = natural.min(max_frames.map_or(u64::MAX, u64::from)).clamp(1, u64::from(u32::MAX)) as u32;
        let rate = if rows > 1 { ((rows - 1) as f64 / duration as f64) as f32 } else { fps };
        ClipRows { rows, rate, duration }
    }

    /// The sample time of row `k`: `duration · k / (rows − 1)`, computed in double
    /// precision so the last row lands exactly on the last key; 0 for a single row.
    pub fn time(&self, k: u32) -> f32 {
        if self.rows <= 1 {
            return 0.0;
        }
        (self.duration as f64 * f64::from(k) / f64::from(self.rows - 1)) as f32
    }

    /// Every row's sample time, in order.
    pub fn times(&self) -> Vec<f32> {
        (0..self.rows).map(|k| self.time(k)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_band_when_the_points_fit() {
        let layout = Layout::new(1728, 162, 16_384);
        assert_eq!((layout.width, layout.bands, layout.height, layout.texels()), (1728, 1, 162, 1728 * 162));
        assert_eq!(layout.band_points(0), 0..1728);
        assert_eq!(layout.band_points(1), 1728..1728);
        assert_eq!(layout.column_uv(0), [0.5 / 1728.0, 0.0]);
    }

    #[test]
    fn bands_share_the_columns_evenly() {
        // 28,374 points at 16,384 columns: two bands of 14,187, no padding at all.
        let layout = Layout::new(28_374, 268, 16_384);
        assert_eq!((layout.width, layout.bands, layout.height), (14_187, 2, 536));
        assert_eq!(layout.band_points(1), 14_187..28_374);
        assert_eq!(layout.texel(14_187, 5), (0, 268 + 5));
        // 10 points at 4 columns: three bands of 4, the last 2 short.
        let layout = Layout::new(10, 1, 4);
        assert_eq!((layout.width, layout.bands), (4, 3));
        assert_eq!(layout.band_points(2), 8..10);
        assert_eq!(layout.column_uv(9), [1.5 / 4.0, 2.0 / 3.0]);
        // 9 points at 4 columns: three bands of 3.
        assert_eq!(Layout::new(9, 1, 4).width, 3);
    }

    #[test]
    fn an_empty_model_still_has_one_column() {
        let layout = Layout::new(0, 3, 16_384);
        assert_eq!((layout.width, layout.bands, layout.height), (1, 1, 3));
        assert_eq!(layout.band_points(0), 0..0);
    }

    #[test]
    fn clip_rows_follow_the_rule() {
        // Fox "Survey": 3.4166667 s at 30 fps → round(102.5) + 1 = 104 rows.
        let survey = ClipRows::new(3.416_666_7, 30.0, None);
        assert_eq!(survey.rows, 104);
        assert!((survey.rate - 103.0 / 3.416_666_7).abs() < 1e-4);
        assert_eq!((survey.time(0), survey.time(103)), (0.0, 3.416_666_7));
        // Capped at 10 rows: resampled evenly over the same duration.
        let capped = ClipRows::new(3.416_666_7, 30.0, Some(10));
        assert_eq!(capped.rows, 10);
        assert!((capped.rate - 9.0 / 3.416_666_7).abs() < 1e-6);
        assert_eq!(capped.times().len(), 10);
        assert_eq!(capped.times()[9], 3.416_666_7);
        // A single pose: one row, rate = fps, duration one frame.
        let pose = ClipRows::new(0.0, 24.0, None);
        assert_eq!((pose.rows, pose.rate, pose.duration, pose.times()), (1, 24.0, 1.0 / 24.0, vec![0.0]));
        // A hostile duration saturates instead of overflowing.
        assert_eq!(ClipRows::new(1e30, 30.0, None).rows, u32::MAX);
    }
}

closed_set! {
    /// How the points are ordered into texture columns (`--column-order`, the
    /// description's `column_order`). The rest mesh's TEXCOORD_1 carries each point's
    /// column, so any order plays; the order only changes how well the texture compresses.
    #[derive(Default)]
    pub enum ColumnOrder {
        /// Column `i` holds point `i`, in the source's vertex order.
        Source = "source",
        /// Points sorted by the Morton (Z-order) code of their rest-pose position,
        /// 10 bits per axis within the rest pose's box, ties in source order:
        /// neighbouring columns hold neighbouring points, whose rows are alike, which
        /// the compressor finds (docs/PERFORMANCE.md, "Column order").
        #[default]
        Spatial = "spatial",
        /// A bone bake's texture (`--mode bones`): four columns per joint, no point
        /// order; the description records it, `--column-order` does not take it.
        Joints = "joints",
    }
}

impl std::str::FromStr for ColumnOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "source" => Ok(ColumnOrder::Source),
            "spatial" => Ok(ColumnOrder::Spatial),
            _ => Err(format!("unknown column order {s:?}: give source or spatial")),
        }
    }
}

/// Which point each texture column holds, and the column of each point: a
/// permutation of `0..points`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Column → point.
    points: Vec<u32>,
    /// Point → column.
    columns: Vec<u32>,
}

impl Columns {
    /// The columns of `order` for points at `rest_positions` (one per point).
    /// Deterministic: the same positions give the same columns.
    ///
    /// ```
    /// use glam::Vec3;
    /// use vat_model::{ColumnOrder, Columns};
    /// let rest = [Vec3::new(1.0, 1.0, 1.0), Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0)];
    /// let columns = Columns::new(ColumnOrder::Spatial, &rest);
    /// assert_eq!((0..3).map(|c| columns.point(c)).collect::<Vec<_>>(), [1, 2, 0]);
    /// assert_eq!(columns.column(0), 2);
    /// assert_eq!(Columns::new(ColumnOrder::Source, &rest).point(0), 0);
    /// ```
    pub fn new(order: ColumnOrder, rest_positions: &[Vec3]) -> Self {
        let mut points: Vec<u32> = (0..rest_positions.len() as u32).collect();
        if order == ColumnOrder::Spatial {
            let (lo, hi) = rest_positions
                .iter()
                .filter(|p| p.is_finite())
                .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)));
            let size = (hi - lo).max(Vec3::splat(f32::MIN_POSITIVE));
            let codes: Vec<u32> = rest_positions
                .iter()
                .map(|&p| {
                    // NaN and anything outside the box clamp into 0..=1023 (`as` saturates).
                    let q = ((p - lo) / size * 1023.0).round();
                    morton3(q.x as u32, q.y as u32, q.z as u32)
                })
                .collect();
            points.sort_by_key(|&p| (codes[p as usize], p));
        }
        let mut columns = vec![0u32; points.len()];
        for (column, &point) in points.iter().enumerate() {
            columns[point as usize] = column as u32;
        }
        Columns { points, columns }
    }

    /// The columns of a permutation given as the point of each column; `None`
    /// when `points` is not a permutation of `0..points.len()`.
    pub fn from_points(points: Vec<u32>) -> Option<Self> {
        let mut columns = vec![u32::MAX; points.len()];
        for (column, &point) in points.iter().enumerate() {
            let slot = columns.get_mut(point as usize)?;
            if *slot != u32::MAX {
                return None;
            }
            *slot = column as u32;
        }
        Some(Columns { points, columns })
    }

    /// Number of points (and columns).
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The point column `column` holds.
    pub fn point(&self, column: usize) -> usize {
        self.points[column] as usize
    }

    /// The column point `point` is in.
    pub fn column(&self, point: usize) -> usize {
        self.columns[point] as usize
    }

    /// The point of every column, in column order.
    pub fn points(&self) -> &[u32] {
        &self.points
    }

    /// True when column `i` holds point `i` for every `i`.
    pub fn is_identity(&self) -> bool {
        self.points.iter().enumerate().all(|(c, &p)| c == p as usize)
    }
}

/// The Morton code of three 10-bit coordinates: their bits interleaved, x lowest.
fn morton3(x: u32, y: u32, z: u32) -> u32 {
    let spread = |v: u32| {
        let mut v = v.min(1023);
        v = (v | (v << 16)) & 0x0300_00ff;
        v = (v | (v << 8)) & 0x0300_f00f;
        v = (v | (v << 4)) & 0x030c_30c3;
        (v | (v << 2)) & 0x0924_9249
    };
    spread(x) | (spread(y) << 1) | (spread(z) << 2)
}

#[cfg(test)]
mod column_tests {
    use super::*;

    #[test]
    fn morton_interleaves_bits_x_lowest() {
        assert_eq!(morton3(1, 0, 0), 1);
        assert_eq!(morton3(0, 1, 0), 2);
        assert_eq!(morton3(0, 0, 1), 4);
        assert_eq!(morton3(2, 0, 0), 8);
        assert_eq!(morton3(1023, 1023, 1023), (1 << 30) - 1);
        assert_eq!(morton3(5000, 0, 0), morton3(1023, 0, 0));
    }

    #[test]
    fn spatial_columns_are_a_permutation_with_ties_in_source_order() {
        let rest = [Vec3::X, Vec3::ZERO, Vec3::X, Vec3::new(f32::NAN, 0.0, 0.0)];
        let columns = Columns::new(ColumnOrder::Spatial, &rest);
        // NaN clamps to code 0, tying with point 1; point 0 and 2 tie at x = 1.
        assert_eq!(columns.points(), [1, 3, 0, 2]);
        assert_eq!((0..4).map(|p| columns.column(p)).collect::<Vec<_>>(), [2, 0, 3, 1]);
        assert!(Columns::new(ColumnOrder::Source, &rest).is_identity());
        assert_eq!(Columns::from_points(vec![1, 3, 0, 2]), Some(columns));
        assert_eq!(Columns::from_points(vec![1, 1, 0]), None);
        assert_eq!(Columns::from_points(vec![0, 3]), None);
    }
}
