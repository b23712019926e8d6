//! The vatbake pipeline as a library: bake a skinned, animated glTF model into a
//! vertex animation texture ([`bake()`]), rebake a roster of units ([`roster`]) and
//! audit shipped bakes against their sources ([`audit`]), over plain settings; read
//! a shipped bake back ([`shipped`]), summarize its files ([`inspect`]) and check
//! its texture against a fresh evaluation of its source ([`verify`]).
//!
//! What it is for: a build step in Rust (a `build.rs`, an asset tool) that bakes
//! without spawning the `vatbake` binary. Reports serialize to the JSON the command
//! line prints; errors are [`Error`]s with an [`ErrorKind`] to match on; progress and
//! cancellation go through a [`Watch`].
//!
//! What it must not do or depend on: print, exit the process, read the command line
//! (clap only derives [`BakeOptions`]' flags, behind the `cli` feature the binary
//! needs: `default-features = false` builds the library without it), or keep global state beyond the list of temporary files an interrupt
//! handler may remove ([`staging::remove_unfinished`]). The stage crates (`vat-gltf`,
//! `vat-skin`, `vat-decimate`, `vat-bounds`, `vat-ktx2`, `vat-audit`) never depend on
//! it; the binary does, and only it turns results into text and exit codes.
//!
//! ```no_run
//! let options = vatbake::BakeOptions::default();
//! let settings = options.settings("fixtures/Fox/Fox.glb".into(), "out".into())?;
//! let report = vatbake::bake(&settings)?;
//! println!("{} points × {} rows, {} bytes", report.points, report.rows, report.texture_bytes);
//! # Ok::<(), vatbake::Error>(())
//! ```

#![warn(missing_docs)]

pub mod audit;
pub mod bake;
pub mod delta;
pub mod error;
mod features;
mod findings;
mod host;
pub mod impostor;
pub mod inspect;
mod pipeline;
pub mod pose;
pub mod preview;
pub mod roster;
pub mod settings;
pub mod shipped;
pub mod slots;
pub mod staging;
pub mod verify;
#[cfg(target_family = "wasm")]
mod wasm;

/// The description file's types, schema, file names and hash rule: the
/// `vat-description` crate, under the name the pipeline has always used.
pub use vat_description as description;

pub use audit::{AuditReport, AuditSettings};
pub use bake::{bake, bake_dry, bake_watched};
pub use bake::{BakeReport, Unwatched, Watch};
pub use error::{Error, ErrorKind};
pub use settings::{BakeMode, BakeOptions, BakeSettings, OutputFormat, GENERATOR};
