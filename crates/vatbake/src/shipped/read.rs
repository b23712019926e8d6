//! Reading a bake's files as a hostile folder may hold them (docs/FORMAT.md, "Reading
//! a bake back"): regular files only (a FIFO, a device or a folder is refused before
//! anything is read, so nothing hangs and `/dev/zero` is not read), inside the
//! description's folder once links are resolved, and never more bytes than the file may
//! have: the size the description records for it, under a hard cap.
//!
//! What `inspect`, `verify`, `preview`, `audit` and the roster's `--check`, `--verify`
//! and `--preview` read goes through here.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The largest description file read: 64 MiB. A bake writes a few kilobytes, and a few
/// megabytes with many sockets on long clips (28 bytes of JSON text per socket per row).
pub const DESCRIPTION_MAX_BYTES: u64 = 64 << 20;
/// The largest rest mesh read: 2 GiB (the bake carries at most 1 GiB of images into it,
/// docs/CLI.md, "The size guard", and its geometry is far smaller than the texture).
pub const REST_MESH_MAX_BYTES: u64 = 2 << 30;
/// The largest texture file read: 4 GiB, whatever its description declares (a bake
/// writes at most 2^27 texels, 1 GiB of RGBA16, twice that with separate normals). Below
/// this cap, a texture is read only up to what its declared shape can take
/// ([`texture_limit`]).
pub const TEXTURE_MAX_BYTES: u64 = 4 << 30;

/// Whether a link in a bake's folder that leads out of it is followed (`--follow-links`);
/// off: such a link is refused.
static FOLLOW_LINKS: AtomicBool = AtomicBool::new(false);

/// Lets the readers of bakes follow links that lead out of a bake's folder (the
/// command line's `--follow-links`), for the rest of the process. By default such a
/// link is refused: a folder that arrived from elsewhere could otherwise make us read
/// (and report on) any file the user may read.
pub fn follow_links_out_of_folders(follow: bool) {
    FOLLOW_LINKS.store(follow, Ordering::Relaxed);
}

/// What a file that is not a regular file is, for a message.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading if it is a regular file and, with `folder`, if it is inside
/// `folder` once links are resolved (or links are followed out of folders, see
/// [`follow_links_out_of_folders`]); returns the file and its size. Nothing is read. On
/// Unix the file is opened without blocking, so a FIFO put in its place between the
/// check and the open cannot hang the reader either. The error names the file and says
/// what is wrong with it.
pub fn open_regular(path: &Path, folder: Option<&Path>) -> Result<(File, u64), String> {
    let shown = path.display();
    let cannot = |e: std::io::Error| format!("{shown}: cannot read it: {e}");
    let link = std::fs::symlink_metadata(path).map_err(cannot)?;
    if link.file_type().is_symlink() {
        if let Some(folder) = folder.filter(|_| !FOLLOW_LINKS.load(Ordering::Relaxed)) {
            let folder = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
            let target = std::fs::canonicalize(path).map_err(|e| format!("{shown}: a link that leads nowhere: {e}"))?;
            let inside = std::fs::canonicalize(folder).is_ok_and(|folder| target.starts_with(folder));
            if !inside {
                return Err(format!(
                    "{shown}: a link to {}, outside the bake's folder: refused (a folder from elsewhere could make \
                     us read any file); put the file itself in the folder, or pass --follow-links",
                    target.display()
                ));
            }
        }
    }
    let not_regular = |file_type| {
        format!(
            "{shown}: {}, not a regular file: refused; put the file the bake wrote in its place",
            kind_of(file_type)
        )
    };
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(not_regular(meta.file_type()));
    }
    Ok((file, meta.len()))
}

/// Reads the regular file `path` ([`open_regular`]) whole, if it has at most `limit`
/// bytes (`why` says where the limit comes from, for the message); never more than
/// `limit` bytes are read, even from a file that grows meanwhile.
pub fn read_regular(path: &Path, folder: Option<&Path>, limit: u64, why: &str) -> Result<Vec<u8>, String> {
    let (file, len) = open_regular(path, folder)?;
    if len > limit {
        return Err(format!("{}: {len} bytes, more than the {limit} {why}: refused", path.display()));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit).read_to_end(&mut bytes).map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
    Ok(bytes)
}

/// SHA-256 of the regular file `path` ([`open_regular`]), lowercase hex, read in pieces,
/// of at most `limit` bytes (a file that is longer has another hash than recorded
/// anyway: its size says so first).
pub fn sha256_regular(path: &Path, folder: Option<&Path>, limit: u64) -> Result<String, String> {
    use sha2::{Digest, Sha256};
    let (file, _) = open_regular(path, folder)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file.take(limit), &mut hasher)
        .map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
    Ok(format!("{:x}", hasher.finalize()))
}

/// The most bytes the texture of `description` may have: what its declared shape
/// holds stored without compression (width × stored rows × 8 bytes, 16 in a bone bake,
/// twice with separate normals), plus 1/64 and 1 MiB for the container, at most
/// [`TEXTURE_MAX_BYTES`].
pub fn texture_limit(description: &crate::description::Description) -> u64 {
    let t = &description.texture;
    let rows = u64::from(t.layers.unwrap_or(1)) * u64::from(t.layer_height.unwrap_or(t.height)).max(1);
    let copies = if description.normals.first_layer.is_some() { 2 } else { 1 };
    let texel = description.bones.as_ref().map_or(8, |b| b.encoding.texel_bytes());
    let raw = u64::from(t.width).saturating_mul(rows).saturating_mul(copies * texel);
    raw.saturating_add(raw / 64).saturating_add(1 << 20).min(TEXTURE_MAX_BYTES)
}

/// The most clips a description may list (docs/FORMAT.md, "Reading a bake back").
pub const MAX_CLIPS: usize = 65_536;
/// The most sockets a description may list.
pub const MAX_SOCKETS: usize = 4_096;
/// The most files of another tool's format a description may list (`exports`).
pub const MAX_EXPORTS: usize = 256;
/// The most `--animations` files a description may list.
pub const MAX_ANIMATION_FILES: usize = 256;
/// The most joints a bone bake's description may list (`bones.sources`).
pub const MAX_JOINTS: usize = 65_536;

/// What is wrong with a description's bytes.
#[derive(Debug)]
pub(crate) enum DescriptionFault {
    /// Not a vatbake description of this version: not JSON, another format or version,
    /// a field of the wrong type (the message says which).
    NotOurs(String),
    /// A list longer than its documented cap: `(field, cap)`.
    TooMany(String, usize),
}

/// The start of the error a capped list gives when it has more entries than its cap.
const TOO_MANY: &str = "vatbake: more entries than ";

/// Any JSON value, of which only a string, a whole number or a list's length is kept:
/// what the first, cheap pass over a description looks at (`format`, `format_version`,
/// the lengths of the capped lists), allocating nothing for anything else. A list of
/// more than `MAX` entries stops the pass at once.
#[derive(Default)]
enum Peek<const MAX: usize> {
    Text(String),
    Whole(u64),
    #[default]
    Other,
}

impl<'de, const MAX: usize> serde::Deserialize<'de> for Peek<MAX> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{Error, IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct Look<const MAX: usize>;
        impl<'de, const MAX: usize> Visitor<'de> for Look<MAX> {
            type Value = Peek<MAX>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
                // Only short strings are kept: `format` is "vatbake.vat".
                Ok(if v.len() <= 64 { Peek::Text(v.to_string()) } else { Peek::Other })
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Peek::Whole(v))
            }
            fn visit_i64<E: Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Peek::Other)
            }
            fn visit_f64<E: Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Peek::Other)
            }
            fn visit_bool<E: Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Peek::Other)
            }
            fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
                Ok(Peek::Other)
            }
            fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
                Ok(Peek::Other)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut count = 0usize;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    count += 1;
                    if count > MAX {
                        return Err(A::Error::custom(format_args!("{TOO_MANY}{MAX}")));
                    }
                }
                Ok(Peek::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Peek::Other)
            }
        }
        deserializer.deserialize_any(Look::<MAX>)
    }
}

/// The first pass: the fields a refusal needs, the capped lists counted, nothing
/// else kept.
#[derive(serde::Deserialize)]
#[allow(dead_code)] // the lists are counted while read, not kept
struct Head {
    #[serde(default)]
    format: Peek<0>,
    #[serde(default)]
    format_version: Peek<0>,
    #[serde(default)]
    clips: Peek<MAX_CLIPS>,
    #[serde(default)]
    sockets: Peek<MAX_SOCKETS>,
    #[serde(default)]
    exports: Peek<MAX_EXPORTS>,
    #[serde(default)]
    lods: Peek<{ crate::description::MAX_LODS }>,
    #[serde(default)]
    animations: Peek<MAX_ANIMATION_FILES>,
    #[serde(default)]
    bones: Option<BonesHead>,
}

#[derive(serde::Deserialize)]
#[allow(dead_code)] // counted while read, not kept
struct BonesHead {
    #[serde(default)]
    sources: Peek<MAX_JOINTS>,
}

/// A description's bytes parsed: a first pass that allocates nothing (format and
/// version, for a clear refusal; the lists counted against their caps), then the
/// description itself, straight from the bytes.
pub(crate) fn parse_description(bytes: &[u8]) -> Result<crate::description::Description, DescriptionFault> {
    use crate::description;
    let not_ours = DescriptionFault::NotOurs;
    let is_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let head = if is_object {
        let mut json = serde_json::Deserializer::from_slice(bytes);
        match serde_path_to_error::deserialize::<_, Head>(&mut json) {
            Ok(head) => Some(head),
            Err(e) => {
                let field = e.path().to_string();
                let inner = e.into_inner();
                if let Some(cap) = inner.to_string().strip_prefix(TOO_MANY) {
                    let cap = cap.split(' ').next().and_then(|c| c.parse().ok()).unwrap_or(0);
                    return Err(DescriptionFault::TooMany(field, cap));
                }
                if !inner.is_data() {
                    return Err(not_ours(format!("not JSON: {inner}")));
                }
                None
            }
        }
    } else {
        // Not an object: JSON or not, it is no description.
        if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
            return Err(not_ours(format!("not JSON: {e}")));
        }
        None
    };
    let (format, version) = match &head {
        Some(h) => (
            match &h.format {
                Peek::Text(t) => Some(t.as_str()),
                _ => None,
            },
            match h.format_version {
                Peek::Whole(v) => Some(v),
                _ => None,
            },
        ),
        None if is_object => (Some(description::FORMAT), Some(u64::from(description::FORMAT_VERSION))),
        None => (None, None),
    };
    if format != Some(description::FORMAT) {
        return Err(not_ours(format!("its format is {format:?}, not \"{}\"", description::FORMAT)));
    }
    if version != Some(u64::from(description::FORMAT_VERSION)) {
        return Err(not_ours(format!(
            "format_version {version:?}; this vatbake reads version {}",
            description::FORMAT_VERSION
        )));
    }
    description::from_slice(bytes).map_err(|e| not_ours(e.to_string()))
}

/// The first field of a description that its readers cannot use as it is, and why:
/// a clip whose rows reach past the texture's, a rate or duration that is not a finite
/// number above zero, bounds that are not finite (or a negative half extent), array
/// layers that cannot hold the texture's rows. Checked before anything is allocated or
/// indexed by these fields.
pub(crate) fn check_fields(d: &crate::description::Description) -> Result<(), (String, String)> {
    let rows = u64::from(d.rows);
    for (i, clip) in d.clips.iter().enumerate() {
        let end = u64::from(clip.row) + u64::from(clip.rows);
        if clip.rows == 0 {
            return Err((format!("clips[{i}].rows"), "0: a clip has at least one row".into()));
        }
        if end > rows {
            return Err((
                format!("clips[{i}].row"),
                format!("rows {}..{end} reach past the texture's {rows} rows (`rows`)", clip.row),
            ));
        }
        for (field, value) in [("rate", clip.rate), ("duration", clip.duration)] {
            if !(value.is_finite() && value > 0.0) {
                return Err((format!("clips[{i}].{field}"), format!("{value}: not a finite number above 0")));
            }
        }
    }
    let p = &d.positions;
    if let Some(at) = p.center.iter().position(|c| !c.is_finite()) {
        return Err((format!("positions.center[{at}]"), format!("{}: not a finite number", p.center[at])));
    }
    if let Some(at) = p.half_extent.iter().position(|h| !(h.is_finite() && *h >= 0.0)) {
        return Err((
            format!("positions.half_extent[{at}]"),
            format!("{}: not a finite number of 0 or more", p.half_extent[at]),
        ));
    }
    let t = &d.texture;
    if t.layers.is_some() || t.layer_height.is_some() {
        let (layers, layer_height) = (t.layers.unwrap_or(1), t.layer_height.unwrap_or(t.height));
        if layers == 0 || layer_height == 0 || u64::from(layers) * u64::from(layer_height) < u64::from(t.height) {
            return Err((
                "texture.layers".into(),
                format!("{layers} layers of {layer_height} rows cannot hold the texture's {} rows", t.height),
            ));
        }
    }
    Ok(())
}

/// A description's bytes through every check its readers apply before they use it:
/// format and version, the capped lists, the file names it gives (inside its folder),
/// then its fields (clip rows within the texture, finite rates and
/// bounds, layers holding the rows). The error says what is wrong, without a file name.
/// What the fuzz targets `description` and `texture_header` run.
pub fn description_from_bytes(bytes: &[u8]) -> Result<crate::description::Description, String> {
    let description = parse_description(bytes).map_err(|fault| match fault {
        DescriptionFault::NotOurs(why) => format!("not a vatbake description ({why})"),
        DescriptionFault::TooMany(field, cap) => format!("{field}: more than {cap} entries"),
    })?;
    let exports = description.exports.iter().map(|e| &e.file);
    for name in [&description.texture.file, &description.mesh.file].into_iter().chain(exports) {
        crate::description::check_file_name(name).map_err(|e| format!("names the file {name:?}: {e}"))?;
    }
    check_fields(&description).map_err(|(field, why)| format!("{field}: {why}"))?;
    Ok(description)
}
