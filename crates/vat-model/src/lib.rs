//! Plain data shared by the vatbake stages.
//!
//! The bake is a straight line: load → evaluate → decimate → bounds → encode → write.
//! The stages meet only in these types: a [`Model`] (points, triangles, node
//! hierarchy, skins, morph targets, clips) comes out of the loader, [`Frames`] (one
//! position and normal per point per row) come out of evaluation, and the [`Layout`]
//! says, in one place, which texel holds which point on which row.
//!
//! This crate does no I/O and no maths beyond the layout arithmetic.
//!
//! ```
//! use vat_model::Layout;
//! // 10,000 points wrapped at 4,096 columns: three bands of 120 rows each.
//! let layout = Layout::new(10_000, 120, 4096);
//! assert_eq!((layout.width, layout.height, layout.bands), (4096, 360, 3));
//! assert_eq!(layout.texel(5000, 7), (5000 - 4096, 120 + 7));
//! ```

use glam::{Mat4, Quat, Vec2, Vec3};

/// Most joint influences kept per point (JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1).
pub const MAX_INFLUENCES: usize = 8;

/// A loaded, dequantized, decompressed model: everything the bake needs, as floats.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Every node of the document, indexed as in the source file.
    pub nodes: Vec<Node>,
    /// Root nodes of the scene being baked, in scene order.
    pub scene_roots: Vec<usize>,
    pub skins: Vec<Skin>,
    /// One entry per (mesh node, primitive), in scene pre-order. Each owns a
    /// contiguous run of points and of triangles.
    pub parts: Vec<Part>,
    /// All points of all parts, concatenated in part order.
    pub points: Points,
    /// Triangles as indices into `points`, concatenated in part order.
    pub triangles: Vec<[u32; 3]>,
    pub clips: Vec<Clip>,
    /// Materials, textures, images and samplers, carried through to the rest mesh.
    pub materials: MaterialSet,
}

/// A node of the scene graph with its rest (unanimated) local transform.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: Option<String>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub rest: Local,
    /// Default morph weights of the mesh on this node (node `weights`, else mesh `weights`).
    pub morph_weights: Vec<f32>,
}

/// A node's local transform. Matrix nodes cannot be animated (glTF 2.0 §5.25).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Local {
    Trs(Trs),
    Matrix(Mat4),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Default for Trs {
    fn default() -> Self {
        Trs { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE }
    }
}

impl Trs {
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

impl Local {
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
    pub name: Option<String>,
    pub joints: Vec<usize>,
    /// One per joint; identity where the source gives none.
    pub inverse_bind: Vec<Mat4>,
}

/// One primitive of one mesh instance.
#[derive(Clone, Debug)]
pub struct Part {
    /// The node that holds the mesh.
    pub node: usize,
    pub mesh: usize,
    pub primitive: usize,
    pub material: Option<usize>,
    pub skin: Option<usize>,
    /// Range into `Model::points`.
    pub first_point: usize,
    pub point_count: usize,
    /// Range into `Model::triangles`.
    pub first_triangle: usize,
    pub triangle_count: usize,
    /// Morph target deltas for this part's points (`point_count` each).
    pub morph_targets: Vec<MorphTarget>,
}

impl Part {
    pub fn points(&self) -> std::ops::Range<usize> {
        self.first_point..self.first_point + self.point_count
    }
    pub fn triangles(&self) -> std::ops::Range<usize> {
        self.first_triangle..self.first_triangle + self.triangle_count
    }
}

#[derive(Clone, Debug, Default)]
pub struct MorphTarget {
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
    pub fn len(&self) -> usize {
        self.positions.len()
    }
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// An animation clip as keyframe channels.
#[derive(Clone, Debug)]
pub struct Clip {
    /// The source clip's name, if it has one.
    pub name: Option<String>,
    /// Index of the animation in the source file.
    pub source_index: usize,
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

#[derive(Clone, Debug)]
pub struct Channel {
    pub node: usize,
    pub property: Property,
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing.
    pub times: Vec<f32>,
    /// Flattened key values: `times.len() × width` for STEP/LINEAR, and
    /// `times.len() × 3 × width` (in-tangent, value, out-tangent) for CUBICSPLINE,
    /// where width is 3 (translation, scale), 4 (rotation, x y z w) or the morph
    /// target count (weights).
    pub values: Vec<f32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    Translation,
    Rotation,
    Scale,
    Weights,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Step,
    Linear,
    CubicSpline,
}

/// Source materials and everything they reference, as glTF JSON, plus the bytes
/// of every image so the rest mesh can embed them. Never decoded.
#[derive(Clone, Debug, Default)]
pub struct MaterialSet {
    pub materials: Vec<serde_json::Value>,
    pub textures: Vec<serde_json::Value>,
    pub samplers: Vec<serde_json::Value>,
    /// Image JSON objects with `uri`/`bufferView` removed; bytes in `image_data`.
    pub images: Vec<serde_json::Value>,
    pub image_data: Vec<ImageData>,
    /// Extensions the carried JSON uses (for `extensionsUsed`).
    pub extensions_used: Vec<String>,
    /// Those of them the source also listed as required.
    pub extensions_required: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct ImageData {
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

/// Evaluated positions and normals: `rows × points`, row-major.
#[derive(Clone, Debug, Default)]
pub struct Frames {
    pub points: usize,
    pub rows: usize,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
}

impl Frames {
    pub fn new(points: usize, rows: usize) -> Self {
        Frames { points, rows, positions: vec![Vec3::ZERO; points * rows], normals: vec![Vec3::ZERO; points * rows] }
    }
    pub fn row_positions(&self, row: usize) -> &[Vec3] {
        &self.positions[row * self.points..(row + 1) * self.points]
    }
    pub fn row_normals(&self, row: usize) -> &[Vec3] {
        &self.normals[row * self.points..(row + 1) * self.points]
    }
}

/// Where each point and row lands in the texture: the one definition of the layout.
///
/// Point `i` on global row `r` is at column `i % width`, image row
/// `(i / width) * rows + r`. With `points <= max_width` there is one band and the
/// image is `points × rows`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub points: usize,
    /// Rows of all clips stacked: the height of one band.
    pub rows: usize,
    pub width: usize,
    pub bands: usize,
    pub height: usize,
}

impl Layout {
    pub fn new(points: usize, rows: usize, max_width: usize) -> Self {
        let max_width = max_width.max(1);
        let width = points.clamp(1, max_width);
        let bands = points.div_ceil(width).max(1);
        Layout { points, rows, width, bands, height: bands * rows }
    }

    /// Texel (x, y) of a point on a global row; y counts down from the top.
    pub fn texel(&self, point: usize, row: usize) -> (usize, usize) {
        (point % self.width, (point / self.width) * self.rows + row)
    }

    /// TEXCOORD_1 of a point: u in the middle of its column, v at the top edge of
    /// its band. A shader samples row `r` at `v + (r + 0.5) / height`.
    pub fn column_uv(&self, point: usize) -> [f32; 2] {
        let (x, y) = self.texel(point, 0);
        [(x as f32 + 0.5) / self.width as f32, y as f32 / self.height as f32]
    }
}
