//! `--format`: the registry of output formats. One entry per format, and every fact the
//! rest of the tool asks about it: its name, its line in `--help`, what bake it is written
//! from (and so what it refuses), where it must not be written, its size limit and its
//! writer. Adding a format is a member here, its arm in [`Format::facts`], its writer
//! module and its page in docs/targets/ (crates/vat-export/README.md, "Adding a target or a
//! format").

use crate::types::{Baked, BakedBones, Export, ExportError, ExportFile};

vat_model::closed_set! {
    /// The files a bake writes (`--format`): its own set, or with another tool's files beside it.
    #[derive(Default)]
    pub enum Format {
        /// The description, the KTX2 (or PNG) texture and the rest mesh alone.
        #[default]
        Vatbake = "vatbake",
        /// Also OpenVAT's 16-bit PNG of offsets, normals PNG, remap JSON and mesh.
        Openvat = "openvat",
        /// Also SideFX Labs VAT 3 soft-body textures, data JSON and mesh.
        Vat3 = "vat3",
        /// Also PlayCanvas's `.vat` container (engine `scripts/esm/vat`).
        Playcanvas = "playcanvas",
        /// Also `<name>.babylon.json`, the baked data Babylon.js's
        /// `VertexAnimationBaker.loadBakedVertexDataFromJSON` reads (a bone bake).
        Babylon = "babylon",
    }
}

vat_model::named_from_str!(Format, "an output format");

/// What a format's files are written from, and the function that writes them.
#[derive(Clone, Copy, Debug)]
pub enum Writer {
    /// Nothing more: the bake's own files are the format.
    Own,
    /// A vertex bake's plain texels (`--mode vertices`); the export may ask for a rest mesh.
    Vertices(fn(&Baked) -> Result<Export, ExportError>),
    /// A bone bake's matrices (`--mode bones`); the bake's own rest mesh is the one skinned.
    Bones(fn(&BakedBones) -> Vec<ExportFile>),
}

/// One format's facts: the registry's entry.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// Its line in `--help`: what it writes, for which players.
    pub about: &'static str,
    /// Who plays its files, as the refusals name them.
    pub players: &'static str,
    /// What its files are written from, and how.
    pub writer: Writer,
    /// The files that could overwrite a source model's own, written into its folder
    /// (refused there), or `None`.
    pub clobbers: Option<&'static str>,
    /// Its own limit on the texture layout `(points, width, bands, rows)`, checked before
    /// anything is evaluated, or `None`.
    pub fits: Option<Fits>,
}

/// A format's limit on a texture layout `(points, width, bands, rows)`.
pub type Fits = fn(usize, usize, usize, usize) -> Result<(), ExportError>;

impl Format {
    /// The format's facts.
    pub const fn facts(self) -> Facts {
        match self {
            Format::Vatbake => Facts {
                about: "the bake's own files alone",
                players: "vatbake's players",
                writer: Writer::Own,
                clobbers: None,
                fits: None,
            },
            Format::Openvat => Facts {
                about: "OpenVAT's 16-bit PNG of offsets, remap JSON, normals PNG and mesh",
                players: "OpenVAT's shaders",
                writer: Writer::Vertices(crate::openvat),
                clobbers: Some("<name>.png and <name>-mesh.glb"),
                fits: None,
            },
            Format::Vat3 => Facts {
                about: "SideFX Labs VAT 3 soft-body, float EXRs of offsets and normal quaternions, Houdini's data \
                        JSON and mesh; all clips as one frame range",
                players: "SideFX Labs VAT 3 players",
                writer: Writer::Vertices(crate::vat3),
                clobbers: None,
                fits: Some(vat3_fits),
            },
            Format::Playcanvas => Facts {
                about: "the PlayCanvas engine's .vat container, for its scripts/esm/vat",
                players: "PlayCanvas's engine",
                writer: Writer::Vertices(crate::playcanvas),
                clobbers: None,
                fits: None,
            },
            Format::Babylon => Facts {
                about: "<name>.babylon.json, the data Babylon.js's VertexAnimationBaker.loadBakedVertexDataFromJSON \
                        reads, with each clip's frame range; a bone bake, implies --mode bones",
                players: "Babylon.js's baked animation",
                writer: Writer::Bones(crate::babylon),
                clobbers: None,
                fits: None,
            },
        }
    }

    /// Its line in `--help`.
    pub fn about(self) -> &'static str {
        self.facts().about
    }

    /// Who plays its files.
    pub fn players(self) -> &'static str {
        self.facts().players
    }

    /// What its files are written from, and how.
    pub fn writer(self) -> Writer {
        self.facts().writer
    }

    /// Its files hold vertex positions: written from a vertex bake's texels, so refused
    /// with `--mode bones`, and with `--root-motion extract` (its players would walk in place).
    pub fn holds_positions(self) -> bool {
        matches!(self.writer(), Writer::Vertices(_))
    }

    /// It is written from a bone bake's matrices: it implies `--mode bones` and refuses
    /// `--mode vertices`.
    pub fn needs_bones(self) -> bool {
        matches!(self.writer(), Writer::Bones(_))
    }

    /// The files that could overwrite a source model's own when written into its folder, or `None`.
    pub fn clobbers(self) -> Option<&'static str> {
        self.facts().clobbers
    }

    /// A texture layout of `points` points in `bands` band(s) of `width` columns and
    /// `rows` rows within the format's limits, or [`ExportError::TooLarge`] saying what to change.
    pub fn fits(self, points: usize, width: usize, bands: usize, rows: usize) -> Result<(), ExportError> {
        self.facts().fits.map_or(Ok(()), |fits| fits(points, width, bands, rows))
    }
}

fn vat3_fits(points: usize, width: usize, bands: usize, rows: usize) -> Result<(), ExportError> {
    crate::vat3_size(points, width, bands, rows).map(|_| ())
}
