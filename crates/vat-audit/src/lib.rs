//! Clip names to game slots, and the audit of baked description files.
//!
//! What it does:
//! - [`AliasTable`]: the game's slots and the clip names each accepts, an `ignore`
//!   list and a `fallback` slot, read from TOML ([`AliasTable::parse`]); the built-in
//!   table is `aliases.toml` in this crate, linked as `assets/aliases.toml` ([`AliasTable::builtin`]).
//! - [`normalize`]: a clip or alias name to lowercase words (separators, camelCase,
//!   rig prefixes such as `Armature|` and `mixamo.com`, trailing numbers).
//! - [`assign`]: a unit's clip names to slots, by whole words, never substrings; one
//!   clip per slot by a fixed rule ([`Duplicate`]), the fallback for a lone unmatched
//!   clip, and [`PlausibleMiss`]es: empty slots that an unassigned clip looks like it
//!   belongs to, found by an independent check ([`plausible`]: stemming and edit
//!   distance, not the table's matcher).
//! - The audit's checks ([`check_description`], [`check_texture`], [`check_hashes`],
//!   [`check_source`], [`check_without_source`]): plain data about a bake (its
//!   [`Description`](vat_description::Description), as read from the file), its
//!   source's clips ([`SourceClips`]) and its texture header ([`TextureFacts`]) in,
//!   [`Finding`]s out, each with what to do. The description is checked against the
//!   bake's own rules, not copies of them: `vat-model`'s row rule
//!   ([`ClipRows`](vat_model::ClipRows)) and texture [`Layout`](vat_model::Layout).
//!
//! What it does not: read files, parse glTF or KTX2, or know the command line. The
//! `vatbake` library reads the description, the source's JSON (`vat_gltf::Summary`)
//! and the texture header (`vat_ktx2::read_texture_header`), and the binary prints
//! the findings. docs/AUDIT.md describes the rules for people.
//!
//! Dependencies: of this workspace, only plain data: `vat-description` (the file's
//! types), `vat-model` (the row rule and the layout) and `vat-ktx2`'s header types
//! (never its readers: nothing here does I/O); besides, `serde`, `thiserror` and
//! `toml`. It must not depend on `vat-gltf` or the other stage crates, or on
//! `vatbake`: the audit works on plain data the caller extracts.
//!
//! ```
//! use vat_audit::{assign, AliasTable};
//!
//! // The seed's table looked for death, die and killed; the clip was called "Dead".
//! let seed = AliasTable::parse(r#"
//!     version = 1
//!     [slots]
//!     walk = ["walk"]
//!     death = ["die", "killed"]
//! "#)?;
//! let a = assign(&[Some("CharacterArmature|Walk"), Some("Dead")], &seed);
//! assert_eq!(a.clips[0].slot(), Some("walk"));
//! assert_eq!(a.clips[1].slot(), None);
//! // The table missed it; the independent guard does not.
//! assert_eq!((a.misses[0].slot.as_str(), a.misses[0].clip), ("death", 1));
//!
//! // The built-in table knows "dead".
//! let a = assign(&[Some("Dead")], &AliasTable::builtin());
//! assert_eq!(a.clips[0].slot(), Some("death"));
//! # Ok::<(), vat_audit::TableError>(())
//! ```

#![warn(missing_docs)]

mod assign;
mod check;
mod normalize;
pub mod plausible;
mod table;

pub use assign::{assign, Assignment, Duplicate, PlausibleMiss, Verdict};
pub use check::{
    changed_since_bake, check_description, check_hashes, check_source, check_texture, check_without_source, Finding,
    Kind, SourceClip, SourceClips, TextureFacts, DURATION_TOLERANCE_FRACTION, DURATION_TOLERANCE_S,
};
pub use normalize::normalize;
pub use plausible::Evidence;
pub use table::{Alias, AliasTable, Slot, TableError, BUILTIN_TABLE, TABLE_VERSION};
