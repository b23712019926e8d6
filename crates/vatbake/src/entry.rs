//! The bake's entry points: a vertex bake (bake.rs) or a bone bake (bones.rs), by
//! the settings' `--mode`.

use crate::bake::{BakeReport, Unwatched, Watch};
use crate::error::Error;
use crate::settings::{BakeMode, BakeSettings};

/// Runs the whole bake for one model: load → clips and slots → decimate →
/// evaluate → bounds → pack (evaluate again, encode, compress) → encode the rest
/// mesh and description → write, all three files renamed into place together.
///
/// ```no_run
/// let settings = vatbake::BakeOptions::default().settings("fixtures/Fox/Fox.glb".into(), "out".into())?;
/// let report = vatbake::bake(&settings)?;
/// assert_eq!(report.points, 1728);
/// # Ok::<(), vatbake::Error>(())
/// ```
pub fn bake(settings: &BakeSettings) -> Result<BakeReport, Error> {
    bake_watched(settings, &Unwatched)
}

/// [`bake()`], telling `watch` how it gets on and stopping when it asks.
pub fn bake_watched(settings: &BakeSettings, watch: &dyn Watch) -> Result<BakeReport, Error> {
    let result = match settings.mode {
        BakeMode::Vertices => crate::bake::run(settings, watch),
        BakeMode::Bones => crate::bones::run(settings, watch),
    };
    crate::bake::outcome(result, watch)
}
