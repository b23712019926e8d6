//! Decimate: the point budget, on the bind pose, before anything is evaluated.
//!
//! Owns: the point budget (raised to keep every uv island when defaulted), the
//! decimated model and which model the later stages evaluate. Must not touch: rows
//! and poses (the decimation's error is measure's), the output folder.

use anyhow::Result;
use vat_model::{Finding, Model};

use crate::error::Error;
use crate::settings::{BakeSettings, PointBudget};

/// The decimation the point budget asks for, in the bind pose; `None` for `--points all`.
/// The default budget rises to the fewest points that keep every uv island (a
/// finding says so); a budget given with `--points` that cannot is refused.
pub(crate) fn decimate(
    model: &Model,
    settings: &BakeSettings,
    warnings: &mut Vec<Finding>,
) -> Result<Option<vat_decimate::Decimation>> {
    let file = settings.input.as_path();
    let PointBudget::Count(n) = settings.points else { return Ok(None) };
    let bind_pose = vat_skin::bind_pose_positions(model);
    let result = match vat_decimate::decimate_in(model, &bind_pose, n as usize) {
        Err(vat_decimate::DecimateError::TooSmall { smallest, .. }) if !settings.points_given => {
            warnings.push(
                Finding::new(
                    "budget-raised",
                    format!("kept {smallest} points, not the default {n}: fewer would leave a uv island with a hole"),
                )
                .advice("--points N chooses the budget (more keeps more detail), --points all keeps every point"),
            );
            vat_decimate::decimate_in(model, &bind_pose, smallest)
        }
        other => other,
    };
    match result {
        Ok(decimation) => Ok(Some(decimation)),
        Err(e @ vat_decimate::DecimateError::NoTriangles { .. }) => {
            Err(Error::input(format!("{}: {e} (--points all)", file.display())).into())
        }
        Err(e) => Err(Error::usage(format!("{}: --points {n}: {e}", file.display())).into()),
    }
}

/// The decimation when it merged points; `None` when every point is kept.
pub(crate) fn merged(decimation: &Option<vat_decimate::Decimation>) -> Option<&vat_decimate::Decimation> {
    decimation.as_ref().filter(|d| d.decimated)
}

/// The model the bake evaluates: the decimated one when points were merged, else the source.
pub(crate) fn baked_model<'a>(source: &'a Model, decimation: &'a Option<vat_decimate::Decimation>) -> &'a Model {
    merged(decimation).map_or(source, |d| &d.model)
}
