//! `verify` of a bone bake (`--mode bones`): the texture's matrices decoded as a
//! player decodes them (32-bit floats, or the 16-bit form of `--bone-encoding quat16`),
//! the bind pose skinned with them on every row and compared with a fresh evaluation
//! of the source by the bone bake's own stages. A clip fails past 1e-4 of the bounds
//! diagonal (the tolerance the vertex bakes and the checks against three.js's
//! SkinnedMesh hold; the 16-bit form is chosen only within it); around that, the
//! checks of a vertex bake that apply: the source's hash, the texture's and the rest
//! mesh's bytes, the texture's shape, the clips.

use std::path::Path;

use glam::Mat4;

use super::*;
use crate::bake::fresh::{evaluate_fresh_bones, FreshBones};
use crate::description::MatrixEncoding;
use crate::pipeline::bones_quat16;

/// The tolerance of a bone bake, as a share of the bounds diagonal.
const BONE_TOLERANCE: f32 = crate::pipeline::pack::QUAT16_TOLERANCE;

/// [`verify`] for a description with `bones`.
pub(super) fn verify_bones(
    settings: &VerifySettings,
    files: ShippedFiles,
    started: Instant,
) -> Result<VerifyReport, Error> {
    let source = match &settings.source {
        Some(path) => path.clone(),
        None => find_source(&files.path, &files.description.source)?,
    };
    let mut findings = Vec::new();
    let mut note = |code: &'static str, message: String| findings.push(VerifyFinding { code, message });
    folder_findings(&files, &mut note);
    mesh_hash_finding(&files, None, &mut note);
    let matrices = read_matrices(&files, &mut note);
    let bake_settings = recorded_settings(&files, source.clone())?;
    let report = evaluate_fresh_bones(&bake_settings, |fresh| {
        Ok(compare_bones(&files, &source, matrices.as_deref(), fresh, &mut note))
    })
    .map_err(Error::from)?;
    Ok(report.finished(&files, source, findings, started))
}

/// The texture's matrices, row by row, as a player decodes them; `None` (with a
/// finding) when the file is not the recorded one or cannot be decoded.
fn read_matrices(files: &ShippedFiles, note: &mut impl FnMut(&'static str, String)) -> Option<Vec<Vec<Mat4>>> {
    let d = &files.description;
    let bones = d.bones.as_ref()?;
    let bytes = match files.read_texture() {
        Ok(bytes) => bytes,
        Err(e) => {
            note("texture-unreadable", e);
            return None;
        }
    };
    texture_bytes_findings(files, &bytes, note);
    let joints = bones.joints as usize;
    let per_joint = bones.encoding.texels_per_joint() as usize;
    let unreadable =
        |e: &dyn std::fmt::Display| format!("{}: the texture cannot be decoded: {e}", files.texture.display());
    let (width, height, rows) = match bones.encoding {
        MatrixEncoding::Float32 => match vat_ktx2::decode_ktx2_rgba32f(&bytes) {
            Ok(image) => {
                let rows = image
                    .texels
                    .chunks_exact((joints * 16).max(1))
                    .map(|row| row.chunks_exact(16).map(Mat4::from_cols_slice).collect::<Vec<Mat4>>());
                (image.width, image.height, rows.collect())
            }
            Err(e) => {
                note("texture-unreadable", unreadable(&e));
                return None;
            }
        },
        MatrixEncoding::Quat16 => {
            let Some(ranges) = &bones.quantization else {
                note(
                    "texture-unreadable",
                    format!("{}: bones.encoding quat16 without bones.quantization's ranges", files.path.display()),
                );
                return None;
            };
            match vat_ktx2::decode_ktx2(&bytes) {
                Ok(image) => (image.width, image.height, bones_quat16::decode(&image.texels, joints, ranges)),
                Err(e) => {
                    note("texture-unreadable", unreadable(&e));
                    return None;
                }
            }
        }
    };
    if (width as usize, height) != (joints * per_joint, d.rows) {
        note(
            "texture-shape",
            format!(
                "{}: the texture is {width}×{height} texels, the description's {joints} joints ({}, {per_joint} texels \
                 a joint) over {} rows make {}×{}: it belongs to another bake",
                files.texture.display(),
                bones.encoding,
                d.rows,
                joints * per_joint,
                d.rows
            ),
        );
        return None;
    }
    Some(rows)
}

/// Every clip's rows skinned by the texture's matrices against the fresh evaluation.
fn compare_bones(
    files: &ShippedFiles,
    source: &Path,
    matrices: Option<&[Vec<Mat4>]>,
    fresh: &FreshBones,
    note: &mut impl FnMut(&'static str, String),
) -> VerifyReport {
    let d = &files.description;
    let path = files.path.display().to_string();
    source_finding(files, source, &fresh.source_sha256, note);
    let joints = d.bones.as_ref().map_or(0, |b| b.joints as usize);
    if fresh.joints() != joints {
        note(
            "texture-shape",
            format!("{path}: records {joints} joint matrices a row, the source gives {}", fresh.joints()),
        );
    }
    check_clips(&path, &d.clips, &fresh.entries, note);
    let diagonal = fresh.diagonal;
    let tolerance = BONE_TOLERANCE * diagonal;
    let mut report = VerifyReport {
        description: PathBuf::new(),
        source: PathBuf::new(),
        passed: false,
        diagonal,
        precision: d.positions.precision,
        decimation_error: 0.0,
        tolerance,
        // The normals are the rest mesh's, skinned by the same matrices: nothing of their own to compare.
        normal_tolerance_degrees: 0.0,
        clips: Vec::new(),
        lods: Vec::new(),
        findings: Vec::new(),
        elapsed_ms: 0.0,
    };
    let Some(matrices) = matrices.filter(|_| fresh.joints() == joints) else { return report };
    for (i, clip) in d.clips.iter().enumerate() {
        let rows: Vec<usize> = (clip.row as usize..(clip.row + clip.rows) as usize)
            .filter(|&r| r < matrices.len() && r < fresh.rows())
            .collect();
        let measured: Vec<(usize, Vec<f32>)> =
            rows.par_iter().map(|&r| (r, fresh.distances(r, &matrices[r]))).collect();
        let (mut max, mut sum, mut count, mut worst) = (0.0f32, 0.0f64, 0usize, (clip.row as usize, 0usize));
        for (r, distances) in &measured {
            for (i, &e) in distances.iter().enumerate() {
                sum += f64::from(e);
                count += 1;
                if e > max {
                    max = e;
                    worst = (*r, i);
                }
            }
        }
        let mean = if count > 0 { (sum / count as f64) as f32 } else { 0.0 };
        let share = |e: f32| if diagonal > 0.0 { e / diagonal } else { 0.0 };
        let passed = max <= tolerance;
        if !passed {
            note(
                "over-tolerance",
                format!(
                    "{path}: clip {:?}: point {} on row {} is {max:.3e} from the source's pose ({:.1e} of the \
                     diagonal, over the tolerance {BONE_TOLERANCE:.0e}): the matrices are not the source's; re-bake the unit",
                    clip.name,
                    worst.1,
                    worst.0,
                    share(max)
                ),
            );
        }
        report.clips.push(ClipCheck {
            name: clip.name.clone(),
            row: clip.row,
            rows_compared: rows.len() as u32,
            max_error: max,
            mean_error: mean,
            max_error_fraction: share(max),
            mean_error_fraction: share(mean),
            worst_row: worst.0 as u32,
            worst_point: worst.1 as u32,
            max_normal_error_degrees: 0.0,
            off_row_times: 0,
            off_row_max_error: 0.0,
            off_row_max_error_fraction: 0.0,
            passed,
        });
        if let Some(check) = report.clips.last_mut() {
            judge_bones_off_rows(files, fresh, matrices, i, check, (tolerance, diagonal), note);
        }
    }
    report
}

/// Clip `i` between its rows, as verify judges a vertex bake's (`judge_off_rows`): each
/// row's decoded matrices skinning the bind pose once, the rows interpolated at every
/// 1/60 s between them (as `@vatbake/three` plays a bone bake), against the fresh pose.
fn judge_bones_off_rows(
    files: &ShippedFiles,
    fresh: &FreshBones,
    matrices: &[Vec<Mat4>],
    i: usize,
    check: &mut ClipCheck,
    (tolerance, diagonal): (f32, f32),
    note: &mut impl FnMut(&'static str, String),
) {
    let clip = &files.description.clips[i];
    let Some(entry) = fresh.entries.get(i) else { return };
    let rows = off_row_span(clip, entry.rows);
    let first = clip.row as usize;
    if rows < 2 || first + rows > matrices.len() || entry.row as usize + rows > fresh.rows() {
        return;
    }
    let times = off_row_times(clip, rows);
    let decoded: Vec<Vec<glam::Vec3>> = matrices[first..first + rows].par_iter().map(|m| fresh.skinned(m)).collect();
    let points = decoded.first().map_or(0, Vec::len);
    let worst = worst_between_rows(&times, &decoded, points, |t, k, a, truth| {
        fresh.positions_at(i, t, entry.row as usize + k, a, truth)
    });
    judge_off_row_error(files, clip, check, times.len(), worst, (tolerance, diagonal), note);
}
