//! The vertex bake: every point on every row, one stage after another.

use anyhow::Result;

use super::{BakeReport, Outcome, Run};
use crate::pipeline::{
    bounds::*, clips::*, decimate::*, encode::*, evaluate::*, load::*, lods, measure::*, pack::*, sockets::sockets,
    texels::Quantizing, Stage, Watch,
};
use crate::settings::BakeSettings;
use crate::staging::Staged;

/// The bake: one call per stage, in order. Each stage is entered through the
/// clock (the watch is told, or stops the bake) and timed into the report.
pub(crate) fn run(settings: &BakeSettings, watch: &dyn Watch, staged: Staged) -> Result<BakeReport> {
    let mut run = Run::new(settings, watch, staged);
    let source = run.clock.stage(Stage::Load, || load(settings, &mut run.found))?;
    let (clips, slots) = clips_and_slots(&source.model, settings, &mut run.found.warnings)?;
    // Decimate once, on the bind pose, before anything is evaluated: every row is
    // evaluated on the budgeted points. The source model stays, for the error.
    // The levels of detail (`--lods`) are simplified from the baked model here too.
    let (decimation, levels) = run.clock.stage(Stage::Decimate, || {
        let decimation = decimate(&source.model, settings, &mut run.found.warnings)?;
        let levels = lods::simplify(baked_model(&source.model, &decimation), settings)?;
        Ok((decimation, levels))
    })?;
    run.found.notes.extend(decimation.iter().flat_map(|d| d.notes.iter().cloned()));
    let model = baked_model(&source.model, &decimation);
    let (rates, mut layout) = texture_layout(model, &clips, settings)?;
    let clip_rows = &rates.rows;
    format_fits(&layout, settings)?;
    let mut posed = run.clock.stage(Stage::Evaluate, || evaluate(model, &clips, slots, &rates, settings))?;
    run.clock.timings.evaluate += rates.ms;
    let mut sockets = sockets(model, &clips, clip_rows, &posed.corrections, &settings.sockets, &settings.input)?;
    let bounds =
        run.clock.stage(Stage::Bounds, || bounds_and_loops(&posed.rig, &posed.poses, &mut posed.entries, settings))?;
    if let Some(first_set) = &source.first_influence_set {
        report_first_set(&source.model, first_set, &clips, clip_rows, &bounds, settings, &mut run.found);
    }
    let quantizing = Quantizing { bounds, grid: settings.precision.grid(&bounds) };
    let (decimation, level_errors) = run.clock.stage(Stage::Measure, || {
        let decimation = merged(&decimation).map(|d| measure(&source.model, d, &posed, &clips, clip_rows, &bounds));
        Ok((decimation, lods::measure(&levels, &posed, posed.poses.len(), &quantizing)))
    })?;
    if settings.loop_rows {
        layout = add_loop_rows(&mut posed, &mut sockets, settings);
        format_fits(&layout, settings)?;
    }
    let texture = run
        .clock
        .stage(Stage::Pack, || pack(&posed, &layout, &quantizing, settings, watch, &mut run.staged, &mut run.found))?;
    run.clock.pack_parts(texture.parts_ms);
    posed.poses = Vec::new(); // every row is in the texture: the poses' memory goes back
    let made = Made {
        source: &source,
        posed: &posed,
        layout: &layout,
        quantizing: &quantizing,
        texture: &texture,
        decimation: decimation.clone(),
        sockets,
        levels: &levels,
        level_errors,
    };
    let encoded = run.clock.stage(Stage::Encode, || encode(made, settings))?;
    let outcome = Outcome {
        texture_bytes: texture.bytes,
        mesh_bytes: encoded.glb.len() as u64,
        raw_texel_bytes: (layout.width * layout.height * 8) as u64,
        size_ratio: posed.size_ratio,
        decimation,
    };
    run.finish(encoded, outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::settings::BakeOptions;
    use crate::settings::PointBudget;
    use std::path::Path;
    use std::sync::Mutex;

    /// The entry point's vertex bake, as `vatbake::bake_watched` runs it.
    fn bake_watched(settings: &BakeSettings, watch: &dyn Watch) -> Result<BakeReport, Error> {
        crate::bake::outcome(run(settings, watch, Staged::new(&settings.out_dir)), watch)
    }

    /// Everything a watch is told, in order.
    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl Watch for Recorder {
        fn stage(&self, name: &'static str) {
            self.0.lock().unwrap().push(name.to_string());
        }
        fn rows(&self, done: usize, total: usize) {
            self.0.lock().unwrap().push(format!("{done}/{total}"));
        }
    }

    fn settings(out: &Path, options: BakeOptions) -> BakeSettings {
        let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/Fox/Fox.glb");
        options.settings(fox, out.to_path_buf()).unwrap()
    }

    fn every_point() -> BakeOptions {
        BakeOptions { points: Some(PointBudget::All), ..Default::default() }
    }

    /// Asks to stop once the texture has its first chunk of rows.
    #[derive(Default)]
    struct StopInPack(std::sync::atomic::AtomicBool);

    impl Watch for StopInPack {
        fn rows(&self, done: usize, _total: usize) {
            if done > 0 {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        fn cancelled(&self) -> bool {
            self.0.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    #[test]
    fn a_watch_stops_a_bake_mid_texture_and_nothing_is_left() {
        let out = tempfile::tempdir().unwrap();
        // 1000 rows per second: 5,286 rows, many chunks, so the stop comes mid-texture.
        let settings =
            settings(out.path(), BakeOptions { fps: Some(crate::settings::Fps::Rate(1000.0)), ..every_point() });
        let error = bake_watched(&settings, &StopInPack::default()).unwrap_err();
        assert_eq!(error, Error::cancelled());
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0, "temporary files removed, nothing written");
    }

    #[test]
    fn the_default_budget_rises_to_keep_every_uv_island_and_a_given_one_does_not() {
        // No fixture needs more than the default 4000 points for its islands, so the
        // default is stood in for by 10 points of the Fox (whose islands need 67).
        let out = tempfile::tempdir().unwrap();
        let mut defaulted = settings(out.path(), BakeOptions::default());
        defaulted.points = PointBudget::Count(10);
        let model = vat_gltf::load(&defaulted.input, &std::fs::read(&defaulted.input).unwrap(), &Default::default())
            .unwrap()
            .model;
        let mut warnings = Vec::new();
        let decimation = decimate(&model, &defaulted, &mut warnings).unwrap().unwrap();
        assert_eq!(decimation.model.points.len(), 67);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].code, "budget-raised");
        assert_eq!(
            warnings[0].message,
            "kept 67 points, not the default 10: fewer would leave a uv island with a hole"
        );

        let given = settings(out.path(), BakeOptions { points: Some(PointBudget::Count(10)), ..Default::default() });
        let error = decimate(&model, &given, &mut warnings).unwrap_err();
        assert!(error.to_string().ends_with("the smallest budget that keeps them all is 67"), "{error}");
    }

    /// The rows told, as (done, total) pairs, in order.
    fn told_rows(heard: &[String]) -> Vec<(usize, usize)> {
        heard
            .iter()
            .filter_map(|h| h.split_once('/'))
            .map(|(done, total)| (done.parse().unwrap(), total.parse().unwrap()))
            .collect()
    }

    #[test]
    fn a_watch_hears_every_stage_and_the_rows_as_they_are_compressed() {
        let out = tempfile::tempdir().unwrap();
        let recorder = Recorder::default();
        // 1728 points at 500 columns: 4 bands of 432, 648 image rows.
        let report =
            bake_watched(&settings(out.path(), BakeOptions { max_width: Some(500), ..every_point() }), &recorder)
                .unwrap();
        assert_eq!((report.width, report.height), (432, 648));
        let heard = recorder.0.into_inner().unwrap();
        let stages: Vec<&str> = heard.iter().map(String::as_str).filter(|h| !h.contains('/')).collect();
        assert_eq!(stages, ["load", "decimate", "evaluate", "bounds", "measure", "pack", "encode", "write"]);
        let rows = told_rows(&heard);
        assert_eq!(rows.first(), Some(&(0, 648)));
        assert_eq!(rows.last(), Some(&(648, 648)));
        // All of them while packing: the rows end with the compression, not before it.
        let pack = heard.iter().position(|h| h == "pack").unwrap();
        let encode = heard.iter().position(|h| h == "encode").unwrap();
        assert!(heard[pack + 1..encode].iter().all(|h| h.contains('/')));
    }

    #[test]
    fn rows_are_told_as_they_are_compressed_and_end_at_the_height() {
        let out = tempfile::tempdir().unwrap();
        let recorder = Recorder::default();
        // 1728 points: one band of 1728 columns (13.5 KiB a row); 1000 fps gives the 3
        // clips 5,286 rows, 71 MiB, in many steps of the compressor.
        let settings =
            settings(out.path(), BakeOptions { fps: Some(crate::settings::Fps::Rate(1000.0)), ..every_point() });
        let report = bake_watched(&settings, &recorder).unwrap();
        let rows = told_rows(&recorder.0.into_inner().unwrap());
        let height = report.height as usize;
        assert!(height > 303 * 2, "height {height}");
        assert!(rows.iter().all(|&(_, total)| total == height));
        assert!(rows.windows(2).all(|w| w[0].0 <= w[1].0), "the rows told go back: {rows:?}");
        assert_eq!((rows[0].0, rows[rows.len() - 1].0), (0, height));
        // Told between the start and the end, as the compressor's workers get on. How
        // often depends on how the workers are scheduled (on a loaded machine they fall
        // behind the rows fed, and fewer distinct figures are told), so the count is
        // not asserted: only that the bar moved before the end.
        let mut distinct: Vec<usize> = rows.iter().map(|&(done, _)| done).collect();
        distinct.dedup();
        assert!(distinct.iter().any(|&done| done > 0 && done < height), "{distinct:?}");
    }
}
