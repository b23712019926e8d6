//! SideFX Labs VAT 3 soft-body: not written yet.

use crate::{Baked, Export, ExportError};

/// The VAT3 soft-body export of a bake.
pub fn vat3(_bake: &Baked) -> Result<Export, ExportError> {
    Err(ExportError::TooLarge("--format vat3 is not written yet".into()))
}
