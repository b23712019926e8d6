//! SideFX Labs VAT 3 soft-body: refused for now, with the reason.
//!
//! Its soft-body players add `Bound Min + tex · (Bound Max − Bound Min)` to the rest
//! vertex from an LDR texture, and three-vat (the one player that runs here) reads LDR
//! data only as 8-bit PNG: 1/255 of the range per step, 257 times coarser than the bake.
//! Lossless data needs its HDR path (EXR, raw float offsets), which is not written yet
//! (docs/targets/FORMATS-NOTES.md).

use crate::types::{Baked, Export, ExportError};

/// The VAT3 soft-body export of a bake: not written yet (see the module's notes).
pub fn vat3(_bake: &Baked) -> Result<Export, ExportError> {
    Err(ExportError::Unsupported(VAT3_NOT_WRITTEN.into()))
}

/// Why `--format vat3` is refused, and what to use instead.
pub const VAT3_NOT_WRITTEN: &str = "--format vat3 is not written yet: VAT 3's LDR texture is 8 bits (three-vat reads \
     no other PNG depth) and its lossless EXR path is still to come; use --format openvat or --format playcanvas";
