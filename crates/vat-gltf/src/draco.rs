//! `KHR_draco_mesh_compression`: a primitive whose geometry is a Draco stream in
//! one buffer view, decoded with the pure-Rust `draco-core` decoder.
//!
//! The extension names a buffer view and, for each compressed glTF attribute, the
//! unique id of its Draco attribute. The primitive's own accessors still say what
//! each attribute is (count, component type, type, normalized); their data, if
//! any, is ignored in favour of the decoded values. Those are turned into floats
//! by the same rules as uncompressed accessor data, so `KHR_mesh_quantization`
//! style integers inside a Draco stream mean what they would mean outside it.
//! Points and triangles keep the decoder's order, which is the order three.js's
//! `DRACOLoader` hands to the GPU. Morph targets are never inside the stream: the
//! extension leaves them as plain accessors over the decoded points.
//!
//! Every count a stream could lie about is bounded by the accessors before the
//! decoder runs. The decoded point count may differ from the accessors' `count`:
//! Draco splits points where an attribute seam runs through them, and merges equal
//! ones, and an old encoder (COLLADA2GLTF's, for the CesiumMan) wrote the count from
//! before. The decoded points win, as in three.js; the loader says so in a warning.

use std::collections::HashMap;

use draco_core::{DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder, PointAttribute, PointIndex};
use gltf::json::accessor::ComponentType;
use gltf::json::mesh::{Mode, Primitive, Semantic};
use gltf::json::validation::Checked;
use serde_json::Value;

use crate::accessor::{component_f32, components, Reader, MAX_VALUES_READ};
use crate::error::{ErrorKind, LoadError};
use crate::limits::MAX_POINTS;

pub(crate) const EXTENSION: &str = "KHR_draco_mesh_compression";

/// Decoded attribute bytes allowed per declared point, for each compressed
/// attribute component (the widest Draco value type is 8 bytes).
const BYTES_PER_COMPONENT: u64 = 8;
/// Fixed allowance on top, for tiny primitives.
const SLACK_BYTES: u64 = 64 << 10;

/// A primitive's decoded Draco geometry.
pub(crate) struct Decoded {
    mesh: Mesh,
    /// glTF attribute name (`POSITION`, `JOINTS_0`, …) → index into the mesh's attributes.
    attributes: HashMap<String, i32>,
    context: String,
    /// POSITION's accessor count (see the module notes).
    declared_points: usize,
}

/// A compressed attribute and the accessor that describes it: (attribute, accessor,
/// component type, components).
type Described<'m, 'r> = (&'m PointAttribute, &'r gltf::json::Accessor, ComponentType, usize);

/// One decoded component, before the accessor's rules apply.
#[derive(Clone, Copy)]
enum Raw {
    Float(f32),
    Int(i64),
}

/// The primitive's `KHR_draco_mesh_compression` extension object, if it has one.
pub(crate) fn extension(primitive: &Primitive) -> Option<&Value> {
    primitive.extensions.as_ref().and_then(|e| e.others.get(EXTENSION))
}

fn declared_count(reader: &Reader, accessor: usize) -> Option<usize> {
    reader.root.accessors.get(accessor).map(|a| a.count.0 as usize)
}

/// Decodes the primitive's Draco stream; `None` when it has none.
pub(crate) fn decode(reader: &Reader, primitive: &Primitive, context: &str) -> Result<Option<Decoded>, LoadError> {
    let Some(ext) = extension(primitive) else { return Ok(None) };
    let invalid = |m: String| LoadError::new(reader.file, ErrorKind::Invalid, format!("{context} ({EXTENSION}): {m}"));
    let corrupt = |m: String| invalid(m).with_hint("the Draco data is damaged; export the model again");

    let view = ext
        .get("bufferView")
        .and_then(Value::as_u64)
        .ok_or_else(|| invalid("the extension has no bufferView".into()))? as usize;
    let Some(map) = ext.get("attributes").and_then(Value::as_object) else {
        return Err(invalid("the extension has no attributes object".into()));
    };
    let mut ids: Vec<(String, u32)> = Vec::with_capacity(map.len());
    for (name, id) in map {
        let id = id
            .as_u64()
            .and_then(|id| u32::try_from(id).ok())
            .ok_or_else(|| invalid(format!("attribute {name} has no valid Draco attribute id")))?;
        if !primitive.attributes.keys().any(|k| matches!(k, Checked::Valid(s) if s.to_string() == *name)) {
            return Err(invalid(format!("attribute {name} is compressed but the primitive has no accessor for it")));
        }
        ids.push((name.clone(), id));
    }
    if !matches!(primitive.mode, Checked::Valid(Mode::Triangles | Mode::TriangleStrip)) {
        return Err(invalid("Draco compression is defined only for triangles and triangle strips".into()));
    }

    // Ceilings from what the accessors declare, before anything is decoded.
    let position = primitive
        .attributes
        .get(&Checked::Valid(Semantic::Positions))
        .map(|a| a.value())
        .ok_or_else(|| invalid("it has no POSITION attribute".into()))?;
    let declared_points = declared_count(reader, position)
        .ok_or_else(|| invalid(format!("POSITION uses accessor {position}, which does not exist")))?;
    let index_count = match primitive.indices {
        Some(a) => Some(
            declared_count(reader, a.value())
                .ok_or_else(|| invalid(format!("indices use accessor {}, which does not exist", a.value())))?,
        ),
        None => None,
    };
    // (No more triangles than the read budget has room for as indices.)
    let max_faces = match (index_count, primitive.mode) {
        (Some(n), Checked::Valid(Mode::Triangles)) => n / 3,
        (Some(n), _) => n,
        (None, _) => declared_points.saturating_mul(4),
    }
    .min(MAX_VALUES_READ / 3);
    // Seams can give a triangle's corners points of their own, but no more than that.
    let max_points = declared_points.max(max_faces.saturating_mul(3)).min(MAX_POINTS) as u64;
    let mut components_declared = 0u64;
    for (name, _) in &ids {
        let accessor = primitive
            .attributes
            .iter()
            .find(|(k, _)| matches!(k, Checked::Valid(s) if s.to_string() == *name))
            .map(|(_, a)| a.value())
            .unwrap_or(usize::MAX);
        let accessor = reader
            .root
            .accessors
            .get(accessor)
            .ok_or_else(|| invalid(format!("{name} uses accessor {accessor}, which does not exist")))?;
        let Checked::Valid(ty) = accessor.type_ else {
            return Err(invalid(format!("{name}'s accessor has an unknown type")));
        };
        components_declared += components(ty) as u64;
    }
    let limits = DecodeLimits::default()
        .with_max_points(max_points)
        .with_max_faces(max_faces as u64)
        .with_max_decoded_bytes(max_points * components_declared * BYTES_PER_COMPONENT + SLACK_BYTES);

    let (bytes, _) = reader.view(view)?;
    let mut buffer = DecoderBuffer::new(bytes).with_limits(limits);
    let mut mesh = Mesh::new();
    // draco-core forbids unsafe code and bounds what a stream may allocate; a
    // corrupt stream gives an error, not a panic (`damaged_draco_streams_are_errors_not_panics`
    // feeds it cut and bit-flipped streams; 20,000 rounds found no panic), so there is
    // no catch_unwind here.
    MeshDecoder::new()
        .decode(&mut buffer, &mut mesh)
        .map_err(|e| corrupt(format!("the Draco stream in buffer view {view} cannot be decoded: {e}")))?;

    if mesh.num_points() as u64 > max_points {
        return Err(corrupt(format!(
            "the Draco stream decodes {} points, more than its {max_faces} triangles can use",
            mesh.num_points()
        )));
    }
    if let (Some(n), Checked::Valid(Mode::Triangles)) = (index_count, primitive.mode) {
        if mesh.num_faces() * 3 != n {
            return Err(corrupt(format!(
                "the Draco stream decodes {} triangles but the indices accessor declares {n} indices",
                mesh.num_faces()
            )));
        }
    }
    let mut attributes = HashMap::with_capacity(ids.len());
    for (name, id) in ids {
        let index = mesh.attribute_id_by_unique_id(id);
        if index < 0 {
            return Err(corrupt(format!("{name} names Draco attribute {id}, which the stream does not have")));
        }
        attributes.insert(name, index);
    }
    Ok(Some(Decoded { mesh, attributes, context: context.to_string(), declared_points }))
}

impl Decoded {
    /// A note for the warnings when the decoded point count is not the declared one.
    pub(crate) fn count_note(&self) -> Option<vat_model::Finding> {
        let decoded = self.mesh.num_points();
        (decoded != self.declared_points).then(|| {
            vat_model::Finding::new(
                "draco-point-count",
                format!(
                    "{}: the Draco stream decodes {decoded} points where the accessors declare {}; \
                     the decoded points are baked (as three.js draws them)",
                    self.context, self.declared_points
                ),
            )
        })
    }

    /// The decoded triangles (or strip indices), as point indices.
    pub(crate) fn indices(&self, reader: &Reader) -> Result<Vec<u32>, LoadError> {
        reader.charge(self.mesh.num_faces() * 3, &format!("{} indices", self.context))?;
        Ok(self.mesh.faces().iter().flat_map(|f| f.map(|p| p.0)).collect())
    }

    fn invalid(&self, reader: &Reader, m: String) -> LoadError {
        LoadError::new(reader.file, ErrorKind::Invalid, format!("{} ({EXTENSION}): {m}", self.context))
    }

    /// The Draco attribute behind `semantic`, and accessor `index` checked against
    /// it: (attribute, accessor, component type, components). `None` when that
    /// attribute is not compressed.
    fn checked<'r>(
        &self,
        reader: &'r Reader,
        index: usize,
        semantic: &Semantic,
        what: &str,
    ) -> Option<Result<Described<'_, 'r>, LoadError>> {
        let &att = self.attributes.get(&semantic.to_string())?;
        let att = self.mesh.attribute(att);
        Some(self.check_accessor(reader, index, att, what).map(|(a, ct, comps)| (att, a, ct, comps)))
    }

    fn check_accessor<'r>(
        &self,
        reader: &'r Reader,
        index: usize,
        att: &PointAttribute,
        what: &str,
    ) -> Result<(&'r gltf::json::Accessor, ComponentType, usize), LoadError> {
        let accessor = reader
            .root
            .accessors
            .get(index)
            .ok_or_else(|| self.invalid(reader, format!("{what} uses accessor {index}, which does not exist")))?;
        let (Checked::Valid(ct), Checked::Valid(ty)) = (accessor.component_type, accessor.type_) else {
            return Err(self.invalid(reader, format!("{what}: accessor {index} has an unknown component type or type")));
        };
        let comps = components(ty);
        let points = self.mesh.num_points();
        if att.num_components() as usize != comps {
            return Err(self.invalid(
                reader,
                format!(
                    "{what}: the Draco attribute has {} components, accessor {index} {comps}",
                    att.num_components()
                ),
            ));
        }
        reader.charge(points * comps, what)?;
        Ok((accessor, ct.0, comps))
    }

    /// Calls `f` with every component of `att`, point by point in decoder order.
    fn visit(
        &self,
        reader: &Reader,
        att: &PointAttribute,
        comps: usize,
        what: &str,
        mut f: impl FnMut(Raw) -> Result<(), LoadError>,
    ) -> Result<(), LoadError> {
        let data_type = att.data_type();
        let width = data_type.byte_length();
        let read: fn(&[u8]) -> Raw = match data_type {
            DataType::Float32 => |b| Raw::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            DataType::Float64 => {
                |b| Raw::Float(f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f32)
            }
            DataType::Int8 => |b| Raw::Int(b[0] as i8 as i64),
            DataType::Uint8 => |b| Raw::Int(b[0] as i64),
            DataType::Int16 => |b| Raw::Int(i16::from_le_bytes([b[0], b[1]]) as i64),
            DataType::Uint16 => |b| Raw::Int(u16::from_le_bytes([b[0], b[1]]) as i64),
            DataType::Int32 => |b| Raw::Int(i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64),
            DataType::Uint32 => |b| Raw::Int(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64),
            other => {
                return Err(self.invalid(reader, format!("{what}: the Draco attribute has values of type {other:?}")))
            }
        };
        let stride = usize::try_from(att.byte_stride()).unwrap_or(0);
        if stride < comps * width {
            return Err(self.invalid(reader, format!("{what}: the Draco attribute has a bad stride")));
        }
        let data = att.buffer().data();
        for p in 0..self.mesh.num_points() {
            let value = att.mapped_index(PointIndex(p as u32)).0 as usize;
            let start = value.checked_mul(stride).filter(|_| value < att.size());
            let Some(bytes) = start.and_then(|s| data.get(s..s.checked_add(comps * width)?)) else {
                return Err(self.invalid(reader, format!("{what}: point {p} has no decoded value")));
            };
            for b in bytes.chunks_exact(width) {
                f(read(b))?;
            }
        }
        Ok(())
    }

    /// The compressed attribute `semantic` as floats, by the accessor's rules (the
    /// counterpart of [`Reader::read_f32`]); `None` when it is not compressed.
    pub(crate) fn read_f32(
        &self,
        reader: &Reader,
        index: usize,
        semantic: &Semantic,
        what: &str,
    ) -> Option<Result<(Vec<f32>, usize), LoadError>> {
        let (att, accessor, ct, comps) = match self.checked(reader, index, semantic, what)? {
            Ok(c) => c,
            Err(e) => return Some(Err(e)),
        };
        let draco_normalized = att.normalized();
        let draco_max = draco_integer_max(att.data_type());
        let mut out = Vec::with_capacity(self.mesh.num_points() * comps);
        let result = self.visit(reader, att, comps, what, |value| {
            out.push(match (value, ct) {
                (Raw::Float(f), ComponentType::F32) => f,
                // An integer Draco attribute read as floats: Draco's own conversion,
                // which normalizes only if the Draco attribute says so.
                (Raw::Int(i), ComponentType::F32) if draco_normalized => i as f32 / draco_max,
                (Raw::Int(i), ComponentType::F32) => i as f32,
                // Integers read exactly as the same integers in an uncompressed accessor.
                (Raw::Int(i), _) => match integer_bytes(i, ct) {
                    Some(bytes) => component_f32(&bytes, ct, accessor.normalized),
                    None => return Err(self.out_of_range(reader, what, i, ct)),
                },
                // Floats where the accessor declares integers (COLLADA2GLTF stored the
                // CesiumMan's joints so): Draco's conversion to the accessor's type first.
                (Raw::Float(f), _) => {
                    match float_to_integer(f, draco_normalized, ct).and_then(|i| integer_bytes(i, ct)) {
                        Some(bytes) => component_f32(&bytes, ct, accessor.normalized),
                        None => return Err(self.float_out_of_range(reader, what, f, ct)),
                    }
                }
            });
            Ok(())
        });
        Some(result.map(|()| (out, comps)))
    }

    /// The compressed attribute `semantic` as unsigned integers (joints), the
    /// counterpart of [`Reader::read_u32`]; `None` when it is not compressed.
    pub(crate) fn read_u32(
        &self,
        reader: &Reader,
        index: usize,
        semantic: &Semantic,
        what: &str,
    ) -> Option<Result<(Vec<u32>, usize), LoadError>> {
        let (att, _, ct, comps) = match self.checked(reader, index, semantic, what)? {
            Ok(c) => c,
            Err(e) => return Some(Err(e)),
        };
        if !matches!(ct, ComponentType::U8 | ComponentType::U16 | ComponentType::U32) {
            return Some(Err(self.invalid(reader, format!("accessor {index} ({what}) must hold unsigned integers"))));
        }
        let draco_normalized = att.normalized();
        let mut out = Vec::with_capacity(self.mesh.num_points() * comps);
        let result = self.visit(reader, att, comps, what, |value| {
            match value {
                Raw::Int(i) if integer_bytes(i, ct).is_some() => out.push(i as u32),
                Raw::Int(i) => return Err(self.out_of_range(reader, what, i, ct)),
                Raw::Float(f) => match float_to_integer(f, draco_normalized, ct) {
                    Some(i) if integer_bytes(i, ct).is_some() => out.push(i as u32),
                    _ => return Err(self.float_out_of_range(reader, what, f, ct)),
                },
            }
            Ok(())
        });
        Some(result.map(|()| (out, comps)))
    }

    fn float_out_of_range(&self, reader: &Reader, what: &str, value: f32, ct: ComponentType) -> LoadError {
        self.invalid(reader, format!("{what}: decoded value {value} does not fit the accessor's {ct:?} components"))
    }

    fn out_of_range(&self, reader: &Reader, what: &str, value: i64, ct: ComponentType) -> LoadError {
        self.invalid(reader, format!("{what}: decoded value {value} does not fit the accessor's {ct:?} components"))
    }
}

/// A float as an integer of the accessor's type, as Draco's decoder converts it
/// (`GetAttributeDataArrayForAllPoints`, which three.js uses): in range or refused;
/// scaled by the type's maximum and rounded if the Draco attribute is normalized,
/// else truncated toward zero.
fn float_to_integer(value: f32, draco_normalized: bool, ct: ComponentType) -> Option<i64> {
    let (min, max) = match ct {
        ComponentType::I8 => (i8::MIN as f64, i8::MAX as f64),
        ComponentType::U8 => (0.0, u8::MAX as f64),
        ComponentType::I16 => (i16::MIN as f64, i16::MAX as f64),
        ComponentType::U16 => (0.0, u16::MAX as f64),
        ComponentType::U32 => (0.0, u32::MAX as f64),
        ComponentType::F32 => return None,
    };
    let v = value as f64;
    if !v.is_finite() || v < min || v > max {
        return None;
    }
    Some(if draco_normalized { (v * max + 0.5).floor() as i64 } else { v.trunc() as i64 })
}

/// The largest value of an integer Draco type (for Draco's own normalization).
fn draco_integer_max(data_type: DataType) -> f32 {
    match data_type {
        DataType::Int8 => i8::MAX as f32,
        DataType::Uint8 => u8::MAX as f32,
        DataType::Int16 => i16::MAX as f32,
        DataType::Uint16 => u16::MAX as f32,
        DataType::Int32 => i32::MAX as f32,
        _ => u32::MAX as f32,
    }
}

/// An integer as the little-endian bytes of an accessor component, if it fits.
/// (Padded to four bytes; the accessor reader looks only at the first `size`.)
fn integer_bytes(value: i64, ct: ComponentType) -> Option<[u8; 4]> {
    let fits = match ct {
        ComponentType::I8 => i8::try_from(value).is_ok(),
        ComponentType::U8 => u8::try_from(value).is_ok(),
        ComponentType::I16 => i16::try_from(value).is_ok(),
        ComponentType::U16 => u16::try_from(value).is_ok(),
        ComponentType::U32 => u32::try_from(value).is_ok(),
        ComponentType::F32 => false,
    };
    // Two's complement little-endian: the low bytes of the i64 are the narrow value.
    fits.then(|| (value as u32).to_le_bytes())
}
