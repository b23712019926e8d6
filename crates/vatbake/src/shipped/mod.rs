//! A shipped bake read back: the description, the texture decoded to positions
//! and normals per point per row (the decode a shader applies, docs/FORMAT.md),
//! and the rest mesh's triangles and the texture column of each of its vertices.
//!
//! What `vatbake inspect`, `vatbake verify` and `vatbake preview` read; nothing
//! here evaluates a source model or writes a file.
//!
//! ```no_run
//! let shipped = vatbake::shipped::Shipped::open("out/Fox.vat.json".as_ref())?;
//! let clip = &shipped.description.clips[0];
//! let positions = shipped.positions(clip.row as usize);
//! assert_eq!(positions.len(), shipped.description.points as usize);
//! let mesh = shipped.rest_mesh()?;
//! assert_eq!(mesh.columns[0], 0);
//! # Ok::<(), vatbake::Error>(())
//! ```

pub(crate) mod exports;
#[doc(hidden)]
pub mod fuzz;
pub mod materials;
pub mod read;

/// The 16+16 octahedral normal of `--normals separate`, decoded as a reader of the bake does.
pub use crate::features::normals::decode_normal16;
use std::path::{Path, PathBuf};

use glam::Vec3;
use vat_bounds::Bounds;
use vat_model::{Columns, Layout};

use crate::description::check_file_name;
use crate::description::{self, Description};
use crate::error::Error;

/// Reads and parses a description file, refusing anything that is not a vatbake
/// description of the version this vatbake reads ([`ErrorKind::Usage`](crate::ErrorKind::Usage)),
/// and anything past the readers' caps: a file that is not a regular file or is larger
/// than [`read::DESCRIPTION_MAX_BYTES`], a list longer than its cap
/// ([`read::MAX_CLIPS`] …) ([`ErrorKind::Input`](crate::ErrorKind::Input)).
///
/// ```no_run
/// let description = vatbake::shipped::read_description("out/Fox.vat.json".as_ref())?;
/// println!("{} points × {} rows", description.points, description.rows);
/// # Ok::<(), vatbake::Error>(())
/// ```
pub fn read_description(path: &Path) -> Result<Description, Error> {
    read_description_in(path, None)
}

/// [`read_description`] of a description found in `folder` (by a search, not named by
/// the user): a link out of the folder is refused.
pub(crate) fn read_description_in(path: &Path, folder: Option<&Path>) -> Result<Description, Error> {
    let bytes = read_description_bytes(path, folder)?;
    parse_description(path, &bytes)
}

/// A description file's bytes: a regular file of at most [`read::DESCRIPTION_MAX_BYTES`].
fn read_description_bytes(path: &Path, folder: Option<&Path>) -> Result<Vec<u8>, Error> {
    if let Err(e) = std::fs::symlink_metadata(path) {
        // Missing or unreadable: said as every reader says it (exit 3).
        return Err(Error::unreadable(path, "it", &e));
    }
    read::read_regular(path, folder, read::DESCRIPTION_MAX_BYTES, "bytes a description may have")
        .map_err(|e| Error::input(format!("{e}; give the .vat.json file a bake wrote")))
}

/// A description's bytes parsed: format and version first, for a clear refusal.
fn parse_description(path: &Path, bytes: &[u8]) -> Result<Description, Error> {
    read::parse_description(bytes).map_err(|fault| match fault {
        read::DescriptionFault::NotOurs(why) => Error::usage(format!(
            "{}: not a vatbake description ({why}); give the .vat.json file a bake wrote, \
             or re-bake the unit with this vatbake",
            path.display()
        )),
        read::DescriptionFault::TooMany(field, cap) => Error::input(format!(
            "{}: {field}: more than {cap} entries, the most a description may have (docs/FORMAT.md, \
             \"Reading a bake back\"): refused before reading further; give the .vat.json file a bake wrote",
            path.display()
        )),
    })
}

/// The folder of a description at `path` (`.` for a bare file name).
pub(crate) fn folder_of(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// The layout a description declares, checked for consistency with itself
/// (`height = bands · rows`, every point in a column, no band left empty).
pub fn layout_of(description: &Description) -> Result<Layout, String> {
    let t = &description.texture;
    let (points, rows) = (description.points as usize, description.rows as usize);
    let (width, bands, height) = (t.width as usize, t.bands as usize, t.height as usize);
    let consistent = bands >= 1
        && width >= 1
        && rows >= 1
        && points >= 1
        && height == bands * rows
        && width * bands >= points
        && width * (bands - 1) < points;
    if !consistent {
        return Err(format!(
            "its texture is {width}×{height} in {bands} bands, which cannot hold {points} points × {rows} rows"
        ));
    }
    Ok(Layout { points, rows, width, bands, height })
}

/// The box a description decodes positions against.
pub fn bounds_of(description: &Description) -> Bounds {
    Bounds {
        center: Vec3::from_array(description.positions.center),
        half_extent: Vec3::from_array(description.positions.half_extent),
    }
}

/// Hashes a description records for its texture and rest mesh (`texture.sha256`,
/// `mesh.sha256`), when it records them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordedHashes {
    /// SHA-256 of the texture file, lowercase hex.
    pub texture: Option<String>,
    /// SHA-256 of the rest mesh file, lowercase hex.
    pub mesh: Option<String>,
}

/// A description and the files beside it, before the texture is decoded.
#[derive(Clone, Debug)]
pub struct ShippedFiles {
    /// The description file.
    pub path: PathBuf,
    /// The description, parsed.
    pub description: Description,
    /// The texture and rest mesh hashes it records, if any.
    pub hashes: RecordedHashes,
    /// The texture file (beside the description).
    pub texture: PathBuf,
    /// The rest mesh file (beside the description).
    pub mesh: PathBuf,
}

impl ShippedFiles {
    /// Reads the description at `path` and names its texture and rest mesh; a
    /// description that names a file outside its folder is refused.
    ///
    /// ```no_run
    /// let files = vatbake::shipped::ShippedFiles::read("out/Fox.vat.json".as_ref())?;
    /// assert!(files.texture.ends_with("Fox.vat.ktx2"));
    /// # Ok::<(), vatbake::Error>(())
    /// ```
    pub fn read(path: &Path) -> Result<Self, Error> {
        let bytes = read_description_bytes(path, None)?;
        let description = parse_description(path, &bytes)?;
        let folder = folder_of(path);
        let exports = description.exports.iter().map(|e| &e.file);
        for name in [&description.texture.file, &description.mesh.file].into_iter().chain(exports) {
            check_file_name(name).map_err(|e| {
                Error::usage(format!("{}: names the file {name:?}: {e}; re-bake the unit", path.display()))
            })?;
        }
        read::check_fields(&description).map_err(|(field, why)| {
            Error::input(format!(
                "{}: {field}: {why}: the description does not fit its texture; re-bake the unit",
                path.display()
            ))
        })?;
        Ok(ShippedFiles {
            path: path.to_path_buf(),
            hashes: RecordedHashes {
                texture: description.texture.sha256.clone(),
                mesh: description.mesh.sha256.clone(),
            },
            texture: folder.join(&description.texture.file),
            mesh: folder.join(&description.mesh.file),
            description,
        })
    }

    /// Files beside the description that a bake of its name writes (the texture in
    /// either format, a `--target` EXR, a `--format` export) but that it does not
    /// record: left by an earlier bake, out of step with this one.
    pub fn unrecorded_files(&self) -> Vec<PathBuf> {
        unrecorded_files(&self.path, &self.description)
    }

    /// Reads and decodes the texture: the KTX2 (Zstandard or uncompressed) or the
    /// 16-bit PNG the description names. The error says what is wrong with it
    /// (missing, truncated, corrupt, another shape than the description's), naming
    /// the file; `verify` reports it as a finding.
    pub fn decode_texture(&self) -> Result<vat_ktx2::Rgba16Image, String> {
        let bytes = self.read_texture()?;
        let image = self.decode_texture_bytes(&bytes)?;
        self.check_shape(&image)?;
        Ok(image)
    }

    /// The folder the description is in: its files are read there only.
    pub fn folder(&self) -> &Path {
        folder_of(&self.path)
    }

    /// The texture file's bytes: a regular file in the description's folder, of at most
    /// the size the description records for it (`texture.bytes`) and never more than
    /// [`read::texture_limit`] bytes.
    pub fn read_texture(&self) -> Result<Vec<u8>, String> {
        let (shape, recorded) = (read::texture_limit(&self.description), self.description.texture.bytes);
        let (limit, why) = if recorded < shape {
            (recorded, "bytes its description records for it (texture.bytes)")
        } else {
            (shape, "bytes the texture's declared shape can take")
        };
        read::read_regular(&self.texture, Some(self.folder()), limit, why)
    }

    /// Whether the texture's header (KTX2 or PNG) declares the description's shape:
    /// checked before anything is inflated, so a texture of another bake, or a small
    /// file declaring a huge image, is refused without allocating for it.
    /// The error is `verify`'s finding: its code (`texture-unreadable`, `texture-shape`)
    /// and message.
    pub fn check_header(&self, bytes: &[u8]) -> Result<(), (&'static str, String)> {
        let t = &self.description.texture;
        let separate = self.description.normals.first_layer.is_some();
        let (layers, layer_height) = (t.layers.unwrap_or(1), t.layer_height.unwrap_or(t.height));
        let stored = u64::from(layers) * u64::from(layer_height) * if separate { 2 } else { 1 };
        let found = match self.description.texture.container {
            description::TextureFormat::Ktx2 => {
                let h = vat_ktx2::read_header(bytes).map_err(|e| {
                    ("texture-unreadable", format!("{}: the texture cannot be decoded: {e}", self.texture.display()))
                })?;
                (h.width, u64::from(h.height) * u64::from(h.layer_count.max(1)))
            }
            description::TextureFormat::Png => {
                match vat_ktx2::read_texture_header(std::io::Cursor::new(bytes)) {
                    Ok(vat_ktx2::TextureFile {
                        header: vat_ktx2::TextureHeader::Png { width, height, .. }, ..
                    }) => (width, u64::from(height)),
                    // Not a PNG: the decoder says what it is.
                    _ => return Ok(()),
                }
            }
        };
        if found != (t.width, stored) {
            return Err((
                "texture-shape",
                format!(
                    "{}: the texture is {}×{} texels, the description says {}×{stored}: it belongs to another bake",
                    self.texture.display(),
                    found.0,
                    found.1,
                    t.width
                ),
            ));
        }
        Ok(())
    }

    /// [`ShippedFiles::decode_texture_bytes`], with the separate normal layers'
    /// texels (`--normals separate`: octahedral 16 + 16 in R and G, delta undone),
    /// `None` without them.
    pub fn decode_texture_parts(&self, bytes: &[u8]) -> Result<(vat_ktx2::Rgba16Image, Option<Vec<u16>>), String> {
        if self.description.bones.is_some() {
            return Err(bone_bake_message(&self.path));
        }
        self.check_header(bytes).map_err(|(_, why)| why)?;
        let mut image = match self.description.texture.container {
            description::TextureFormat::Png => vat_ktx2::decode_png16(bytes),
            description::TextureFormat::Ktx2 => vat_ktx2::decode_ktx2(bytes),
        }
        .map_err(|e| format!("{}: the texture cannot be decoded: {e}", self.texture.display()))?;
        let normals = unlayer(&self.description, &mut image).map_err(|e| format!("{}: {e}", self.texture.display()))?;
        undo_delta(&self.description, &mut image).map_err(|e| format!("{}: {e}", self.path.display()))?;
        let normals = match normals {
            None => None,
            Some(mut normals) => {
                undo_delta(&self.description, &mut normals).map_err(|e| format!("{}: {e}", self.path.display()))?;
                Some(normals.texels)
            }
        };
        Ok((image, normals))
    }

    /// Decodes the texture's bytes (already read) by the description's container.
    /// A texture stored under a delta (`texture.delta`) comes back undone: the
    /// texels a shader reads.
    pub fn decode_texture_bytes(&self, bytes: &[u8]) -> Result<vat_ktx2::Rgba16Image, String> {
        self.decode_texture_parts(bytes).map(|(image, _)| image)
    }

    /// Whether a decoded texture has the description's width and height.
    pub fn check_shape(&self, image: &vat_ktx2::Rgba16Image) -> Result<(), String> {
        let t = &self.description.texture;
        if (image.width, image.height) != (t.width, t.height) {
            return Err(format!(
                "{}: the texture is {}×{} texels, the description says {}×{}: it belongs to another bake",
                self.texture.display(),
                image.width,
                image.height,
                t.width,
                t.height
            ));
        }
        Ok(())
    }
}

/// The logical texture of an array texture (`texture.layers`): its layers, decoded one
/// after the other, less the last layer's padding. A texture without layers is left as it is.
/// With separate normals (`normals.first_layer`), the normal layers' logical image is
/// returned (delta not yet undone).
pub fn unlayer(
    description: &Description,
    image: &mut vat_ktx2::Rgba16Image,
) -> Result<Option<vat_ktx2::Rgba16Image>, String> {
    let t = &description.texture;
    let separate = description.normals.first_layer.is_some();
    if t.layers.is_none() && !separate {
        return Ok(None);
    }
    let (layers, layer_height) = (t.layers.unwrap_or(1), t.layer_height.unwrap_or(t.height));
    let copies: u64 = if separate { 2 } else { 1 };
    let stored = u64::from(layers) * u64::from(layer_height);
    if u64::from(image.height) != stored * copies || stored < u64::from(t.height) {
        return Err(format!(
            "the texture holds {} rows, where {} layers of {layer_height} rows for a {}-row texture were recorded: \
             it belongs to another bake",
            image.height,
            u64::from(layers) * copies,
            t.height
        ));
    }
    let row = image.width as usize * 4;
    let normals = separate.then(|| vat_ktx2::Rgba16Image {
        width: image.width,
        height: t.height,
        texels: image.texels[stored as usize * row..][..t.height as usize * row].to_vec(),
    });
    image.texels.truncate(t.height as usize * row);
    image.height = t.height;
    Ok(normals)
}

/// Undoes the delta `description.texture.delta` records (nothing when it records
/// none), leaving the texels a shader reads.
pub fn undo_delta(description: &Description, image: &mut vat_ktx2::Rgba16Image) -> Result<(), String> {
    let Some(recorded) = &description.texture.delta else { return Ok(()) };
    let delta = Some(recorded.mode)
        .filter(|d| *d != crate::delta::Delta::None && d.order() == recorded.order as usize)
        .ok_or_else(|| {
            format!(
                "texture.delta \"{}\" of order {}: this vatbake undoes \"row\" (order 1) and \"second\" (order 2)",
                recorded.mode, recorded.order
            )
        })?;
    let rows = description.rows as usize;
    if rows == 0 || !(image.height as usize).is_multiple_of(rows) {
        return Err(format!("the texture's {} rows are not whole bands of {rows} rows", image.height));
    }
    let row_len = image.width as usize * 4;
    let layout = recorded.layout.unwrap_or_default();
    if layout.in_planes() {
        let block_rows = recorded.block_rows.filter(|&b| b > 0).ok_or_else(|| {
            format!("texture.delta.layout \"{layout}\" without texture.delta.block_rows: the description is damaged")
        })?;
        let width = image.width as usize;
        let refs = match (layout, &recorded.references) {
            (crate::delta::DeltaLayout::PlanesRef, Some(text)) => crate::delta::References::from_base64(text, width)
                .map_err(|e| format!("{e}: the description is damaged"))?,
            (crate::delta::DeltaLayout::PlanesRef, None) => {
                return Err("texture.delta.layout \"planes-ref\" without texture.delta.references: the description is \
                            damaged"
                    .to_string())
            }
            _ => crate::delta::References::left(width),
        };
        crate::delta::undo_planes(&mut image.texels, row_len, block_rows as usize, &refs);
    }
    let first = crate::delta::clip_starts(description.clips.iter().map(|c| c.row as usize), rows);
    crate::delta::undo(delta, layout, &mut image.texels, row_len, &first);
    Ok(())
}

/// A shipped bake with its texture decoded: every point's position and normal on
/// every row, as a shader sees them.
#[derive(Clone, Debug)]
pub struct Shipped {
    /// The description and its files.
    pub files: ShippedFiles,
    /// The description (the same as `files.description`).
    pub description: Description,
    /// Where each point and row is in the texture.
    pub layout: Layout,
    /// The box the positions decode against.
    pub bounds: Bounds,
    /// The decoded texels.
    pub image: vat_ktx2::Rgba16Image,
    /// The separate normal layers' texels (`--normals separate`), laid out as `image`.
    pub normal_texels: Option<Vec<u16>>,
    /// Which point (rest-mesh vertex) each column holds: from the rest mesh's
    /// TEXCOORD_1 when the description's `texture.column_order` is not "source".
    pub columns: Columns,
}

impl Shipped {
    /// Reads the description at `path` and decodes its texture. A file that is
    /// not a description is a usage error; a texture that cannot be read or
    /// decoded, or disagrees with the description, an input error.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let files = ShippedFiles::read(path)?;
        refuse_bone_bake(&files)?;
        Self::from_files(files).map_err(Error::input)
    }

    /// [`Shipped::open`] from a description already read; the error is the texture's.
    pub fn from_files(files: ShippedFiles) -> Result<Self, String> {
        let layout = layout_of(&files.description).map_err(|e| format!("{}: {e}", files.path.display()))?;
        let bytes = files.read_texture()?;
        let (image, normal_texels) = files.decode_texture_parts(&bytes)?;
        files.check_shape(&image)?;
        let columns = match files.description.texture.column_order {
            description::ColumnOrder::Source => {
                Columns::from_points((0..layout.points as u32).collect()).expect("a permutation")
            }
            description::ColumnOrder::Spatial | description::ColumnOrder::Joints => {
                columns_of(&read_rest_mesh_in(&files.mesh, Some(files.folder())).map_err(|e| e.message)?, layout.points)
                    .map_err(|e| format!("{}: {e}", files.mesh.display()))?
            }
        };
        Ok(Shipped {
            columns,
            description: files.description.clone(),
            bounds: bounds_of(&files.description),
            files,
            layout,
            image,
            normal_texels,
        })
    }

    /// The normal of `point` on global row `row`, by the description's `normals.mode`:
    /// zero with none stored.
    fn normal_of(&self, point: usize, row: usize, alpha: u16) -> Vec3 {
        let (x, y) = self.layout.texel(self.columns.column(point), row);
        self.normal_at((y * self.layout.width + x) * 4, alpha)
    }

    /// The normal of the texel whose first value is at `at`, its alpha `alpha`.
    fn normal_at(&self, at: usize, alpha: u16) -> Vec3 {
        match (&self.normal_texels, self.description.normals.mode) {
            (Some(normals), _) => crate::features::normals::decode_normal16(normals[at], normals[at + 1]),
            (None, description::NormalsMode::None) => Vec3::ZERO,
            (None, _) => vat_bounds::decode_normal(alpha),
        }
    }

    /// Rows of all clips stacked (the height of one band).
    pub fn rows(&self) -> usize {
        self.layout.rows
    }

    /// Points: one texture column each.
    pub fn points(&self) -> usize {
        self.layout.points
    }

    /// The RGBA16 texel of `point` (rest-mesh vertex) on global row `row`, from its column.
    pub fn texel(&self, point: usize, row: usize) -> [u16; 4] {
        let (x, y) = self.layout.texel(self.columns.column(point), row);
        let at = (y * self.layout.width + x) * 4;
        let t = &self.image.texels[at..at + 4];
        [t[0], t[1], t[2], t[3]]
    }

    /// Decodes global row `row` into `positions` and `normals` (one per point).
    ///
    /// # Panics
    /// If `row` is past the last row or a slice is not one per point.
    pub fn decode_row(&self, row: usize, positions: &mut [Vec3], normals: &mut [Vec3]) {
        assert!(row < self.layout.rows, "row {row} of {}", self.layout.rows);
        assert_eq!(positions.len(), self.layout.points);
        assert_eq!(normals.len(), self.layout.points);
        for (point, (p, n)) in positions.iter_mut().zip(normals.iter_mut()).enumerate() {
            let [r, g, b, a] = self.texel(point, row);
            *p = vat_bounds::decode_position([r, g, b], &self.bounds);
            *n = self.normal_of(point, row, a);
        }
    }

    /// Decodes global row `row` column by column, as a shader that samples by
    /// TEXCOORD_1 reads it: `positions[c]` is column `c`'s.
    ///
    /// # Panics
    /// If `row` is past the last row or a slice is not one per column.
    pub fn decode_columns(&self, row: usize, positions: &mut [Vec3], normals: &mut [Vec3]) {
        assert!(row < self.layout.rows, "row {row} of {}", self.layout.rows);
        assert_eq!(positions.len(), self.layout.points);
        assert_eq!(normals.len(), self.layout.points);
        for (column, (p, n)) in positions.iter_mut().zip(normals.iter_mut()).enumerate() {
            let (x, y) = self.layout.texel(column, row);
            let at = (y * self.layout.width + x) * 4;
            let t = &self.image.texels[at..][..4];
            *p = vat_bounds::decode_position([t[0], t[1], t[2]], &self.bounds);
            *n = self.normal_at(at, t[3]);
        }
    }

    /// Every point's position on global row `row`, in model units.
    pub fn positions(&self, row: usize) -> Vec<Vec3> {
        (0..self.layout.points)
            .map(|point| {
                let [r, g, b, _] = self.texel(point, row);
                vat_bounds::decode_position([r, g, b], &self.bounds)
            })
            .collect()
    }

    /// Every point's unit normal on global row `row`.
    pub fn normals(&self, row: usize) -> Vec<Vec3> {
        (0..self.layout.points).map(|point| self.normal_of(point, row, self.texel(point, row)[3])).collect()
    }

    /// The rest mesh beside the description ([`read_rest_mesh`]).
    pub fn rest_mesh(&self) -> Result<RestMesh, Error> {
        read_rest_mesh_in(&self.files.mesh, Some(self.files.folder()))
    }
}

/// A rest mesh (`<name>.rest.glb`) read back: what a renderer of the texture needs.
#[derive(Clone, Debug, PartialEq)]
pub struct RestMesh {
    /// The GLB's `asset.generator`, if any.
    pub generator: Option<String>,
    /// Rest-pose position of every vertex, the two bounds corners last.
    pub positions: Vec<Vec3>,
    /// Rest-pose normal of every vertex (+Y where the file has none).
    pub normals: Vec<Vec3>,
    /// The texture column (point index) each vertex reads, from its TEXCOORD_1:
    /// `band · width + floor(u · width)`, with `band = round(v · bands)` (the width
    /// from the smallest u, the bands from the distinct v).
    pub columns: Vec<u32>,
    /// Every vertex's TEXCOORD_1 as stored, for a reader that knows the texture's shape.
    pub uv1: Vec<[f64; 2]>,
    /// Triangles of every primitive, as vertex indices.
    pub triangles: Vec<[u32; 3]>,
    /// The material of each triangle (its primitive's `material`), `None` for none.
    pub triangle_materials: Vec<Option<u32>>,
    /// Every vertex's TEXCOORD_0 (the material's uvs); empty when the file has none.
    pub uv0: Vec<[f32; 2]>,
    /// Primitives (one per source primitive with triangles).
    pub primitives: usize,
    /// Materials carried over from the source.
    pub materials: usize,
    /// `POSITION`'s min and max: the box around the animation and the rest pose.
    pub min: Vec3,
    /// See `min`.
    pub max: Vec3,
}

/// Reads a rest mesh GLB as `vatbake bake` writes it (one mesh, float positions,
/// TEXCOORD_1 on every primitive; plain, or with `--rest-mesh meshopt` under
/// `EXT_meshopt_compression`). Anything else is a usage error naming the file.
///
/// ```no_run
/// let mesh = vatbake::shipped::read_rest_mesh("out/Fox.rest.glb".as_ref())?;
/// println!("{} vertices, {} triangles", mesh.positions.len(), mesh.triangles.len());
/// # Ok::<(), vatbake::Error>(())
/// ```
pub fn read_rest_mesh(path: &Path) -> Result<RestMesh, Error> {
    read_rest_mesh_in(path, None)
}

/// [`read_rest_mesh`] of the rest mesh a description in `folder` names: a link out of
/// the folder is refused. Either way only a regular file of at most
/// [`read::REST_MESH_MAX_BYTES`] is read.
pub(crate) fn read_rest_mesh_in(path: &Path, folder: Option<&Path>) -> Result<RestMesh, Error> {
    if let Err(e) = std::fs::symlink_metadata(path) {
        return Err(Error::unreadable(path, "it", &e));
    }
    let bytes = read::read_regular(path, folder, read::REST_MESH_MAX_BYTES, "bytes a rest mesh may have")
        .map_err(|e| Error::input(format!("{e}; give the .rest.glb file a bake wrote")))?;
    rest_mesh_from(&bytes).map_err(|why| {
        Error::usage(format!(
            "{}: not a vatbake rest mesh ({why}); give the .rest.glb file a bake wrote, as it wrote it: \
             optimizers rewrite its accessors and drop its column uv (TEXCOORD_1); see docs/PLAYBACK.md, \
             \"Optimizers\"",
            path.display()
        ))
    })
}

/// A rest mesh's bytes read as [`read_rest_mesh`] reads a file's (every buffer view and
/// accessor checked against the binary chunk before anything is allocated); the error
/// says what is wrong, without a file name. What the fuzz target `rest_mesh` runs.
pub fn rest_mesh_from_bytes(bytes: &[u8]) -> Result<RestMesh, String> {
    rest_mesh_from(bytes)
}

/// The files beside the description at `path` that a bake of its name writes but `d`
/// does not record (see [`ShippedFiles::unrecorded_files`]).
pub fn unrecorded_files(path: &Path, d: &Description) -> Vec<PathBuf> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".vat.json")) else {
        return Vec::new();
    };
    let target = d.target.as_ref().map(|t| t.texture.as_str());
    let recorded: Vec<&str> = [d.texture.file.as_str(), d.mesh.file.as_str()]
        .into_iter()
        .chain(target)
        .chain(d.exports.iter().map(|e| e.file.as_str()))
        .chain(d.lods.iter().map(|l| l.file.as_str()))
        .collect();
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let endings = [
        ".vat.ktx2",
        ".vat.png",
        "-godot.exr",
        "-unity.exr",
        "-unreal.exr",
        ".vat",
        ".babylon.json",
        "_data.json",
        "_pos.exr",
        "_rot.exr",
        "_col.exr",
        "_mesh.glb",
        "-vnrm.png",
        "-remap_info.json",
        "-mesh.glb",
    ];
    // Levels of detail (`--lods`): `<name>.lodN.rest.glb`, as many as a bake may write.
    let levels = (1..=crate::description::MAX_LODS).map(|level| format!(".lod{level}.rest.glb"));
    endings
        .iter()
        .map(|ending| ending.to_string())
        .chain(levels)
        .map(|ending| format!("{name}{ending}"))
        .filter(|file| !recorded.contains(&file.as_str()))
        .map(|file| folder.join(file))
        .filter(|path| path.is_file())
        .collect()
}

/// The JSON and binary chunks of a GLB.
pub(crate) fn glb_chunks(bytes: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let word = |at: usize| -> Option<u32> { Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?)) };
    if bytes.get(..4) != Some(b"glTF") {
        return Err("no GLB header".into());
    }
    if word(4) != Some(2) {
        return Err(format!("GLB version {:?}, not 2", word(4)));
    }
    let mut at = 12usize;
    let (mut json, mut bin) = (None, &[][..]);
    while at + 8 <= bytes.len() {
        let (length, kind) = (word(at).unwrap_or(0) as usize, word(at + 4).unwrap_or(0));
        let data = bytes.get(at + 8..(at + 8).saturating_add(length)).ok_or("a chunk runs past the end of the file")?;
        match kind {
            0x4E4F_534A if json.is_none() => json = Some(data),
            0x004E_4942 if bin.is_empty() => bin = data,
            _ => {}
        }
        at += 8 + length.next_multiple_of(4);
    }
    Ok((json.ok_or("no JSON chunk")?, bin))
}

/// The bytes of every buffer view stored under `EXT_meshopt_compression` (as
/// `vatbake bake --rest-mesh meshopt` writes them: vertex attributes of 4 to 16 bytes
/// with no filter, triangle indices), decoded; `None` for plain views.
fn decoded_views(doc: &serde_json::Value, bin: &[u8]) -> Result<Vec<Option<Vec<u8>>>, String> {
    fn vertices<T: Clone + Default + std::borrow::Borrow<[u8]>>(
        encoded: &[u8],
        count: usize,
    ) -> Result<Vec<u8>, String> {
        let decoded = meshopt::decode_vertex_buffer::<T>(encoded, count)
            .map_err(|e| format!("compressed vertices that do not decode ({e})"))?;
        Ok(decoded.concat())
    }
    let views = doc["bufferViews"].as_array().map_or(&[][..], Vec::as_slice);
    let mut decoded = Vec::with_capacity(views.len());
    for (index, view) in views.iter().enumerate() {
        let Some(ext) = view.get("extensions").and_then(|e| e.get("EXT_meshopt_compression")) else {
            decoded.push(None);
            continue;
        };
        let field = |name: &str| ext[name].as_u64().map(|v| v as usize);
        let (Some(length), Some(stride), Some(count)) = (field("byteLength"), field("byteStride"), field("count"))
        else {
            return Err(format!("buffer view {index}'s EXT_meshopt_compression lacks byteLength, byteStride or count"));
        };
        if ext["buffer"].as_u64() != Some(0) || ext["filter"].as_str().is_some_and(|f| f != "NONE") {
            return Err(format!("buffer view {index} is compressed outside the binary chunk or filtered"));
        }
        if count.checked_mul(stride).is_none_or(|size| size > 256 << 20) {
            return Err(format!("buffer view {index} would decode to more than 256 MiB"));
        }
        let offset = field("byteOffset").unwrap_or(0);
        let encoded = bin
            .get(offset..offset.saturating_add(length))
            .ok_or(format!("buffer view {index}'s compressed bytes run past the binary chunk"))?;
        let bytes = match (ext["mode"].as_str().unwrap_or(""), stride) {
            ("ATTRIBUTES", 4) => vertices::<[u8; 4]>(encoded, count)?,
            ("ATTRIBUTES", 8) => vertices::<[u8; 8]>(encoded, count)?,
            ("ATTRIBUTES", 12) => vertices::<[u8; 12]>(encoded, count)?,
            ("ATTRIBUTES", 16) => vertices::<[u8; 16]>(encoded, count)?,
            ("TRIANGLES", 2) => meshopt::decode_index_buffer::<u16>(encoded, count)
                .map_err(|e| format!("compressed indices that do not decode ({e})"))?
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
            ("TRIANGLES", 4) => meshopt::decode_index_buffer::<u32>(encoded, count)
                .map_err(|e| format!("compressed indices that do not decode ({e})"))?
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
            (mode, _) => {
                return Err(format!("buffer view {index} is compressed as {mode} with a {stride}-byte stride"))
            }
        };
        decoded.push(Some(bytes));
    }
    Ok(decoded)
}

/// Reads accessor `index` as f32 (float), u32 (unsigned byte, short or int) or, when
/// the accessor is normalized, the `[0, 1]` or `[-1, 1]` value its integers stand for;
/// `width` values per element. A view in `decoded` is read from its decoded bytes.
fn accessor(
    doc: &serde_json::Value,
    bin: &[u8],
    decoded: &[Option<Vec<u8>>],
    index: &serde_json::Value,
    width: usize,
) -> Result<Vec<f64>, String> {
    let index = index.as_u64().ok_or("an accessor index is not a number")? as usize;
    let acc = doc["accessors"].get(index).ok_or(format!("no accessor {index}"))?;
    let count = acc["count"].as_u64().ok_or("an accessor has no count")? as usize;
    let kind = acc["type"].as_str().unwrap_or("");
    let expected = match width {
        1 => "SCALAR",
        2 => "VEC2",
        3 => "VEC3",
        _ => "",
    };
    if kind != expected {
        return Err(format!("accessor {index} is {kind}, not {expected}"));
    }
    let component = acc["componentType"].as_u64().unwrap_or(0);
    let normalized = acc["normalized"].as_bool().unwrap_or(false);
    let size = match component {
        5126 | 5125 => 4,
        5123 => 2,
        5121 => 1,
        // Signed normalized integers are what a compressed rest mesh (`--rest-mesh
        // meshopt`) quantizes its normals to; any other signed integers are an
        // optimizer's quantized positions.
        5122 if normalized => 2,
        5120 if normalized => 1,
        5120 | 5122 => {
            let bits = if component == 5120 { 8 } else { 16 };
            return Err(format!(
                "accessor {index} holds quantized signed {bits}-bit values (KHR_mesh_quantization, as gltfpack \
                 writes by default), where vatbake writes floats"
            ));
        }
        other => return Err(format!("accessor {index} has component type {other}")),
    };
    // Every size checked before anything is allocated, as the bake's glTF reader does:
    // the accessor inside its buffer view, the view inside the binary chunk, no sum or
    // product wrapping, a stride no shorter than an element.
    let view_index = acc["bufferView"].as_u64().ok_or(format!("accessor {index} has no buffer view"))?;
    let view = doc["bufferViews"].get(view_index as usize).ok_or(format!("no buffer view {view_index}"))?;
    // A meshopt view is read from its decoded bytes, which are the whole view.
    let (bin, decoded_view) = match decoded.get(view_index as usize).and_then(Option::as_deref) {
        Some(bytes) => (bytes, true),
        None if view["buffer"].as_u64() == Some(0) => (bin, false),
        None => return Err("a buffer view outside the GLB's binary chunk".into()),
    };
    let field = |value: &serde_json::Value, name: &str, default: Option<u64>| -> Result<u64, String> {
        match (&value[name], default) {
            (serde_json::Value::Null, Some(default)) => Ok(default),
            (found, _) => found.as_u64().ok_or(format!("accessor {index}'s {name} is not a whole number: {found}")),
        }
    };
    let view_offset = if decoded_view { 0 } else { field(view, "byteOffset", Some(0))? };
    let view_length = field(view, "byteLength", None)?;
    let view_end = view_offset
        .checked_add(view_length)
        .filter(|&end| end <= bin.len() as u64)
        .ok_or(format!("buffer view {view_index} runs past the binary chunk ({} bytes)", bin.len()))?;
    let element = (size * width) as u64;
    let stride = field(view, "byteStride", Some(element))?;
    if stride < element {
        return Err(format!(
            "buffer view {view_index}'s byteStride {stride} is shorter than an element ({element} bytes)"
        ));
    }
    let offset = field(acc, "byteOffset", Some(0))?;
    let need = match count as u64 {
        0 => Some(0),
        n => (n - 1).checked_mul(stride).and_then(|b| b.checked_add(element)),
    };
    let start = view_offset.checked_add(offset);
    let end = start.zip(need).and_then(|(start, need)| start.checked_add(need));
    let (Some(start), Some(end)) = (start, end.filter(|&end| end <= view_end)) else {
        return Err(format!(
            "accessor {index} ({count} elements, byteOffset {offset}, stride {stride}) runs past its buffer view \
             {view_index} ({view_length} bytes)"
        ));
    };
    let (start, stride) = (start as usize, stride as usize);
    let data = &bin[start..end as usize];
    let mut values = Vec::with_capacity(count * width);
    for element in 0..count {
        for c in 0..width {
            let at = element * stride + c * size;
            let b = &data[at..at + size];
            values.push(match (component, normalized) {
                (5126, _) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                (5125, _) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
                (5123, false) => u16::from_le_bytes([b[0], b[1]]) as f64,
                (5123, true) => u16::from_le_bytes([b[0], b[1]]) as f64 / 65535.0,
                (5122, false) => i16::from_le_bytes([b[0], b[1]]) as f64,
                (5122, true) => (i16::from_le_bytes([b[0], b[1]]) as f64 / 32767.0).max(-1.0),
                (5121, false) => b[0] as f64,
                (5121, true) => b[0] as f64 / 255.0,
                (_, false) => b[0] as i8 as f64,
                (_, true) => (b[0] as i8 as f64 / 127.0).max(-1.0),
            });
        }
    }
    Ok(values)
}

/// What an optimizer did to a rest mesh, named from its JSON before any byte is
/// decoded: the column uv (`TEXCOORD_1`) dropped, or positions or the column uv
/// quantized (`KHR_mesh_quantization`, or a meshopt filter over quantized values). A
/// bake writes both as floats, unfiltered, in every primitive.
fn optimized(doc: &serde_json::Value) -> Result<(), String> {
    let primitives = doc["meshes"][0]["primitives"].as_array().map_or(&[][..], Vec::as_slice);
    for (p, primitive) in primitives.iter().enumerate() {
        let attributes = &primitive["attributes"];
        let Some(uv1) = attributes.get("TEXCOORD_1") else {
            return Err(format!(
                "primitive {p} has no TEXCOORD_1, the column uv each vertex finds its texture column by, which no \
                 material reads: an optimizer dropped it as unused (gltfpack without -kv, gltf-transform with \
                 its default --prune-attributes)"
            ));
        };
        for (attribute, index) in [("positions", &attributes["POSITION"]), ("column uv (TEXCOORD_1)", uv1)] {
            let Some(index) = index.as_u64() else { continue };
            let accessor = &doc["accessors"][index as usize];
            let kind = match accessor["componentType"].as_u64().unwrap_or(5126) {
                5126 => None,
                5120 => Some("signed 8-bit"),
                5121 => Some("unsigned 8-bit"),
                5122 => Some("signed 16-bit"),
                5123 => Some("unsigned 16-bit"),
                _ => Some("integer"),
            };
            if let Some(kind) = kind {
                return Err(format!(
                    "accessor {index} holds {attribute} quantized to {kind} values (KHR_mesh_quantization, as \
                     gltfpack writes by default and gltf-transform quantize, meshopt and optimize do), where \
                     vatbake writes floats"
                ));
            }
            let view = &doc["bufferViews"][accessor["bufferView"].as_u64().unwrap_or(u64::MAX) as usize];
            let filter = view["extensions"]["EXT_meshopt_compression"]["filter"].as_str().filter(|f| *f != "NONE");
            if let Some(filter) = filter {
                return Err(format!(
                    "accessor {index} holds {attribute} meshopt-compressed under the {filter} filter, which \
                     quantizes them (gltf-transform meshopt and optimize do), where vatbake writes floats"
                ));
            }
        }
    }
    Ok(())
}

fn rest_mesh_from(bytes: &[u8]) -> Result<RestMesh, String> {
    let (json, bin) = glb_chunks(bytes)?;
    let doc: serde_json::Value = serde_json::from_slice(json).map_err(|e| format!("its JSON: {e}"))?;
    optimized(&doc)?;
    let decoded = decoded_views(&doc, bin)?;
    // The bytes the indices may come from: the binary chunk and the decoded views.
    let data_bytes = bin.len() + decoded.iter().flatten().map(Vec::len).sum::<usize>();
    let accessor = |index: &serde_json::Value, width: usize| accessor(&doc, bin, &decoded, index, width);
    let primitives = doc["meshes"][0]["primitives"].as_array().ok_or("no mesh")?;
    let first = primitives.first().ok_or("a mesh without primitives")?;
    let attributes = &first["attributes"];
    let vec3s = |values: Vec<f64>| -> Vec<Vec3> {
        values.chunks_exact(3).map(|c| Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32)).collect()
    };
    let positions = vec3s(accessor(&attributes["POSITION"], 3)?);
    let normals = match attributes.get("NORMAL") {
        Some(index) => vec3s(accessor(index, 3)?),
        None => vec![Vec3::Y; positions.len()],
    };
    let uv1 = accessor(attributes.get("TEXCOORD_1").ok_or("no TEXCOORD_1")?, 2)?;
    if normals.len() != positions.len() || uv1.len() != positions.len() * 2 {
        return Err("its attributes have different counts".into());
    }
    // The texture's shape from the columns themselves: u = (x + ½) / width, v = band · rows / height.
    let width = uv1.chunks_exact(2).map(|uv| uv[0]).fold(f64::INFINITY, f64::min);
    let width = if width > 0.0 { (0.5 / width).round() } else { 0.0 };
    let mut vs: Vec<f64> = uv1.chunks_exact(2).map(|uv| uv[1]).collect();
    vs.sort_by(f64::total_cmp);
    vs.dedup();
    let bands = vs.len().max(1);
    let columns = uv1
        .chunks_exact(2)
        .map(|uv| {
            let x = (uv[0] * width).floor();
            let band = (uv[1] * bands as f64).round();
            (band * width + x).max(0.0) as u32
        })
        .collect();
    let uv0: Vec<[f32; 2]> = match attributes.get("TEXCOORD_0") {
        Some(index) => accessor(index, 2)?.chunks_exact(2).map(|uv| [uv[0] as f32, uv[1] as f32]).collect(),
        None => Vec::new(),
    };
    if !uv0.is_empty() && uv0.len() != positions.len() {
        return Err("its attributes have different counts".into());
    }
    let mut triangles = Vec::new();
    let mut triangle_materials = Vec::new();
    // Primitives may share an index accessor; all of them together still read no more
    // indices than the binary chunk holds (one byte each at the least).
    let mut indices_read = 0usize;
    for primitive in primitives {
        if primitive["attributes"] != *attributes {
            return Err("primitives with different vertex attributes".into());
        }
        let mode = primitive["mode"].as_u64().unwrap_or(4);
        if mode != 4 {
            return Err(format!("a primitive of mode {mode}, not triangles"));
        }
        let index = primitive.get("indices").ok_or("a primitive without indices")?;
        let declared = index.as_u64().and_then(|i| doc["accessors"].get(i as usize)).map(|a| &a["count"]);
        indices_read = indices_read.saturating_add(declared.and_then(|c| c.as_u64()).unwrap_or(0) as usize);
        if indices_read > data_bytes {
            return Err(format!(
                "its primitives declare {indices_read} indices, more than its {data_bytes} bytes of binary data can hold"
            ));
        }
        let indices = accessor(index, 1)?;
        for t in indices.chunks_exact(3) {
            let triangle = [t[0] as u32, t[1] as u32, t[2] as u32];
            if triangle.iter().any(|&i| i as usize >= positions.len()) {
                return Err("a triangle points past the last vertex".into());
            }
            triangles.push(triangle);
            triangle_materials.push(primitive["material"].as_u64().map(|m| m as u32));
        }
    }
    let bound = |key: &str| -> Vec3 {
        let v = &doc["accessors"][attributes["POSITION"].as_u64().unwrap_or(0) as usize][key];
        let c = |i: usize| v[i].as_f64().unwrap_or(0.0) as f32;
        Vec3::new(c(0), c(1), c(2))
    };
    Ok(RestMesh {
        generator: doc["asset"]["generator"].as_str().map(str::to_string),
        min: bound("min"),
        max: bound("max"),
        positions,
        normals,
        columns,
        uv1: uv1.chunks_exact(2).map(|uv| [uv[0], uv[1]]).collect(),
        triangles,
        triangle_materials,
        uv0,
        primitives: primitives.len(),
        materials: doc["materials"].as_array().map_or(0, Vec::len),
    })
}

/// The columns the rest mesh's first `points` vertices read, as a [`Columns`]:
/// an error when they are not each point in a column of its own.
pub fn columns_of(mesh: &RestMesh, points: usize) -> Result<Columns, String> {
    if mesh.columns.len() < points {
        return Err(format!("{} vertices for {points} points", mesh.columns.len()));
    }
    let mut by_column = vec![u32::MAX; points];
    for (vertex, &column) in mesh.columns[..points].iter().enumerate() {
        match by_column.get_mut(column as usize) {
            Some(slot) if *slot == u32::MAX => *slot = vertex as u32,
            Some(slot) => {
                return Err(format!(
                    "vertices {} and {vertex} both read texture column {column}: its TEXCOORD_1 is wrong",
                    *slot
                ))
            }
            None => {
                return Err(format!(
                    "vertex {vertex} reads texture column {column}, past the {points} points: its TEXCOORD_1 is wrong"
                ))
            }
        }
    }
    Columns::from_points(by_column).ok_or_else(|| "the vertices do not read one column each".to_string())
}

/// What `preview` (and any reader of a vertex texture) says of a bone bake (`--mode bones`),
/// whose texture it does not read.
pub fn bone_bake_message(description: &Path) -> String {
    format!(
        "{}: a bone bake (--mode bones): its texture holds joint matrices, not points, which this command \
         does not read; `vatbake inspect` and `vatbake verify` read it, and a bake with --mode vertices can be \
         previewed",
        description.display()
    )
}

/// Refuses a bone bake (exit 2) where only vertex bakes are read.
pub fn refuse_bone_bake(files: &ShippedFiles) -> Result<(), Error> {
    match files.description.bones {
        Some(_) => Err(Error::usage(bone_bake_message(&files.path))),
        None => Ok(()),
    }
}

/// Where a file a bake read beside its source (an `--animations` file, the name map)
/// is now, for a description in `folder`: where the description records it (relative to
/// itself) if a file is there, else beside the source as `source_folder/file`; `None`
/// when the recorded name is not a plain file name.
pub(crate) fn locate_input(
    recorded: &crate::description::Source,
    folder: &Path,
    source_folder: &Path,
) -> Option<PathBuf> {
    check_file_name(&recorded.file).ok()?;
    Some(recorded.recorded_path(folder).filter(|p| p.is_file()).unwrap_or_else(|| source_folder.join(&recorded.file)))
}
