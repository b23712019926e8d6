//! What the binary prints of the library's reports: the audit's text, the roster's
//! table, progress and grouped findings. Only here and in `messages`.

use std::io::IsTerminal;

use vatbake::audit::AuditReport;
use vatbake::description::{NormalsMode, RootMotionMode};
use vatbake::roster::{RosterReport, RosterWatch, UnitResult};

use crate::args::AuditFormat;
use crate::messages::{self, out};

/// Prints an audit report; the exit code is 1 when there are findings.
pub fn audit(report: &AuditReport, format: AuditFormat) -> anyhow::Result<u8> {
    match format {
        AuditFormat::Json => out!("{}", serde_json::to_string_pretty(report)?),
        AuditFormat::Text => audit_text(report),
    }
    Ok(if report.findings > 0 { messages::EXIT_FINDINGS } else { 0 })
}

/// One line per finding, grouped by unit, then a summary line.
fn audit_text(report: &AuditReport) {
    for unit in report.results.iter().filter(|u| !u.findings.is_empty()) {
        match &unit.source {
            Some(source) => out!("{} (source {})", unit.description.display(), source.display()),
            None => out!("{}", unit.description.display()),
        }
        for f in &unit.findings {
            out!("  {}: {}; {}", f.kind.label(), f.message, f.advice);
        }
    }
    let took = format!("{:.0} ms", report.elapsed_ms);
    let units = messages::count(report.units, "unit");
    if report.findings == 0 {
        out!("audit: {units}, no findings ({took})");
    } else {
        out!(
            "audit: {units}, {} with findings, {} ({took})",
            report.units_with_findings,
            messages::count(report.findings, "finding")
        );
    }
}

/// A roster's progress: a bar on a terminal, one plain line per unit otherwise,
/// nothing when disabled. The bar is cleared when dropped.
pub struct RosterProgress {
    bar: Option<indicatif::ProgressBar>,
    lines: bool,
}

impl RosterProgress {
    pub fn new(enabled: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (enabled && terminal).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} units  {elapsed}  {msg}")
                    .expect("the template is valid"),
            );
            bar
        });
        RosterProgress { bar, lines: enabled && !terminal }
    }
}

impl RosterWatch for RosterProgress {
    fn unit_done(&self, result: &UnitResult, done: usize, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_message(format!("{} {}", result.status, result.name));
            bar.inc(1);
        } else if self.lines {
            // A failure's message is printed once, as an error after the run.
            match &result.error {
                Some(_) => eprintln!("[{done}/{total}] failed {}", result.name),
                None => eprintln!("[{done}/{total}] {} {} ({:.0} ms)", result.status, result.name, result.ms),
            }
        }
    }
}

impl Drop for RosterProgress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Every unit's findings, the same finding of several units said once
/// (`12 units: clip "Wave" fills no slot`), in the order first seen, with each
/// kind's advice once.
pub fn roster_warnings(report: &RosterReport) {
    let mut groups: Vec<(&vat_model::Finding, Vec<&str>)> = Vec::new();
    for unit in &report.units {
        for finding in &unit.warnings {
            match groups.iter_mut().find(|(f, _)| f.code == finding.code && f.message == finding.message) {
                Some((_, units)) => units.push(&unit.name),
                None => groups.push((finding, vec![&unit.name])),
            }
        }
    }
    let labels: Vec<String> = groups
        .iter()
        .map(|(_, units)| match units.as_slice() {
            [one] => one.to_string(),
            many => format!("{} units ({})", many.len(), abbreviated(many)),
        })
        .collect();
    messages::warnings(groups.iter().zip(&labels).map(|((finding, _), label)| (Some(label.as_str()), *finding)));
}

/// "a, b, c" or "a, b, c and 9 more".
fn abbreviated(names: &[&str]) -> String {
    const SHOWN: usize = 3;
    let mut list = names.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
    if names.len() > SHOWN {
        list.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    list
}

/// The summary table: per unit, then the roster's totals.
pub fn roster_summary(report: &RosterReport) {
    out!("{:<28} {:>8} {:>8} {:>6} {:>11} {:>11} {:>9}", "unit", "status", "points", "rows", "texture", "gpu", "ms");
    for unit in &report.units {
        let num = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
        out!(
            "{:<28} {:>8} {:>8} {:>6} {:>11} {:>11} {:>9.0}",
            unit.name,
            unit.status,
            num(unit.points),
            num(unit.rows),
            unit.texture_bytes.map_or("-".into(), messages::bytes),
            unit.gpu_bytes.map_or("-".into(), messages::bytes),
            unit.ms
        );
    }
    out!(
        "{}: {} baked, {} skipped (unchanged), {} failed; textures {}, meshes {}, gpu {}; {:.1} s",
        messages::count(report.units.len(), "unit"),
        report.baked,
        report.skipped,
        report.failed,
        messages::bytes(report.total_texture_bytes),
        messages::bytes(report.total_mesh_bytes),
        messages::bytes(report.total_gpu_bytes),
        report.ms / 1000.0
    );
}

/// What `inspect` adds after a recorded file's size: nothing when the file beside the
/// description has it, else " — missing" or its size on disk.
fn on_disk(recorded: u64, on_disk: Option<u64>) -> String {
    match on_disk {
        None => " — missing".to_string(),
        Some(b) if b != recorded => format!(" — {} on disk", messages::bytes(b)),
        Some(_) => String::new(),
    }
}

/// `vatbake inspect`'s text: a few short lines.
pub fn inspection(inspection: &vatbake::inspect::Inspection) {
    use vatbake::inspect::Inspection;
    let v3 = |v: [f32; 3]| format!("({:.4}, {:.4}, {:.4})", v[0], v[1], v[2]);
    let percent = |r: f64| format!("{:.1}%", 100.0 * r);
    match inspection {
        Inspection::Description(d) => {
            let t = &d.texture;
            out!("{}: {}", messages::bold(&d.file.display().to_string()), d.generator);
            out!("  source    {} ({}, sha256 {})", d.source.file, messages::bytes(d.source.bytes), &d.source.sha256);
            out!(
                "  texture   {} {}×{}{}{} {} {}+{}, {} (raw {}, {}){}",
                t.file,
                t.width,
                t.height,
                if t.bands > 1 { format!(" in {} bands", t.bands) } else { String::new() },
                match (t.layers, t.layer_height) {
                    (Some(n), Some(h)) => format!(" in {n} array layers of {h} rows"),
                    _ => String::new(),
                },
                t.format,
                t.container,
                t.supercompression,
                messages::bytes(t.bytes),
                messages::bytes(d.raw_bytes),
                percent(d.ratio_to_raw),
                on_disk(t.bytes, d.texture_on_disk)
            );
            out!(
                "  points    {} × {} rows; rest mesh {} ({} triangles)",
                d.points,
                d.rows,
                d.mesh.file,
                d.mesh.triangles
            );
            for e in &d.exports {
                out!(
                    "  export    {} {}{}",
                    e.record.file,
                    messages::bytes(e.record.bytes),
                    on_disk(e.record.bytes, e.on_disk)
                );
            }
            out!(
                "  bounds    {} .. {}, diagonal {:.4}; precision {:.3e}{}; normals within {}°",
                v3(d.bounds_min),
                v3(d.bounds_max),
                d.diagonal,
                d.precision,
                d.grid.map_or(String::new(), |[x, y, z]| format!(" (a {x}×{y}×{z}-step grid)")),
                d.normal_max_error_degrees
            );
            if let Some(b) = &d.bones {
                out!(
                    "  bones     {} joints, {} ({} texels a joint), GPU {}; error max {:.3e} ({:.1e} of the diagonal, \
                     tolerance 1e-4)",
                    b.joints,
                    b.encoding,
                    b.texels_per_joint,
                    messages::bytes(d.gpu_bytes),
                    b.max_error,
                    b.max_error_fraction
                );
            }
            match &d.decimation {
                None => out!("  decimation none (every source point baked)"),
                Some(x) => out!(
                    "  decimation {} → {} points; error max {:.3e} ({:.3}%), mean {:.3e} ({:.4}%) over {} rows",
                    x.source_points,
                    x.points,
                    x.max_error,
                    100.0 * x.max_error_fraction,
                    x.mean_error,
                    100.0 * x.mean_error_fraction,
                    x.rows_measured
                ),
            }
            for (level, l) in d.lods.iter().enumerate() {
                let r = &l.record;
                out!(
                    "  lod {}     {}: {} points, {} triangles; error max {:.3e} ({:.3}%), mean {:.3e} ({:.4}%) \
                     over {} rows; shown below {:.2}% of the screen height, from {:.4} ({} px at {}p, {}°){}",
                    level + 1,
                    r.file,
                    r.points,
                    r.triangles,
                    r.max_error,
                    100.0 * r.max_error_fraction,
                    r.mean_error,
                    100.0 * r.mean_error_fraction,
                    r.rows_measured,
                    100.0 * r.switch.screen_fraction,
                    r.switch.distance,
                    r.switch.pixels,
                    r.switch.screen_height,
                    r.switch.vertical_fov_degrees,
                    if l.on_disk.is_none() { " — missing" } else { "" }
                );
            }
            out!(
                "  settings  fps {}, points {}, max width {}, columns {}, delta {}, zstd {}{}, merge {}{}",
                match d.settings.fps_tolerance {
                    Some(t) => format!("auto (at most {}, tolerance {t} of the diagonal)", d.settings.fps),
                    None => d.settings.fps.to_string(),
                },
                d.settings.points,
                d.settings.max_width,
                d.settings.column_order,
                d.settings.delta,
                d.settings.zstd_level,
                if d.settings.zstd_long { " (long window)" } else { "" },
                d.settings.merge_clips,
                match (d.settings.tolerance, d.settings.bits) {
                    (Some(t), _) => format!(", tolerance {t}"),
                    (_, Some(b)) => format!(", bits {b}"),
                    _ => String::new(),
                }
            );
            let s = &d.settings;
            let mut playback = Vec::new();
            if s.loop_rows {
                playback.push("loop rows".to_string());
            }
            if !d.sockets.is_empty() {
                playback.push(format!("sockets {}", d.sockets.join(", ")));
            }
            if s.root_motion != RootMotionMode::Keep || !s.root_motion_clips.is_empty() {
                let overrides: Vec<String> = s.root_motion_clips.iter().map(|(k, v)| format!("{k}={v}")).collect();
                playback
                    .push(format!("root motion {}", [vec![s.root_motion.to_string()], overrides].concat().join(",")));
            }
            if let Some(h) = s.max_height {
                playback.push(format!("max size {}x{h}", s.max_width));
            }
            if d.normals != NormalsMode::Packed {
                playback.push(format!("normals {}", d.normals));
            }
            if !playback.is_empty() {
                out!("  playback  {}; GPU {}", playback.join("; "), messages::bytes(d.gpu_bytes));
            }
            for c in &d.clips {
                let travel = c.root_motion.as_ref().map_or(String::new(), |r| match &r.translation {
                    Some(t) => {
                        let last = t.last().copied().unwrap_or_default();
                        format!(", root motion {} ({:.4}, {:.4})", r.mode, last[0], last[2])
                    }
                    None => format!(", root motion {}", r.mode),
                });
                out!(
                    "  clip {:<24} {:<10} rows {:>4}..{:<4} {:>7.3} s at {:>7.3} rows/s{}{}{}",
                    format!("\"{}\"", c.name),
                    c.slot.as_deref().unwrap_or("(no slot)"),
                    c.row,
                    c.row + c.rows,
                    c.duration,
                    c.rate,
                    if c.looping { ", loops" } else { "" },
                    if c.loop_row { ", loop row" } else { "" },
                    travel
                );
            }
        }
        Inspection::Texture(t) => {
            out!(
                "{}: {} {}×{}{}, {}, {} level{}, supercompression {}",
                messages::bold(&t.file.display().to_string()),
                t.container.as_str().to_uppercase(),
                t.width,
                t.height,
                if t.layers > 1 { format!(" × {} array layers", t.layers) } else { String::new() },
                match (t.format, t.vk_format) {
                    (Some(f), _) => f.to_string(),
                    (None, Some(v)) => format!("vkFormat {v} (not vatbake's)"),
                    (None, None) => "not 16-bit RGBA (not vatbake's)".to_string(),
                },
                t.levels,
                if t.levels == 1 { "" } else { "s" },
                t.supercompression
            );
            match (t.raw_bytes, t.ratio_to_raw) {
                (Some(raw), Some(r)) => {
                    out!("  {} (raw {}, {})", messages::bytes(t.bytes), messages::bytes(raw), percent(r))
                }
                _ => out!("  {}", messages::bytes(t.bytes)),
            }
            for (key, value) in &t.key_values {
                out!("  {key} = {value}");
            }
        }
        Inspection::Source(s) => {
            source_inspection(s);
        }
        Inspection::RestMesh(m) => {
            out!(
                "{}: {}",
                messages::bold(&m.file.display().to_string()),
                m.generator.as_deref().unwrap_or("(no generator)")
            );
            out!(
                "  {} vertices ({} texture columns + {} bounds corners), {} triangles in {} primitive{}, {} material{}, {}",
                m.vertices,
                m.columns,
                m.vertices.saturating_sub(m.columns),
                m.triangles,
                m.primitives,
                if m.primitives == 1 { "" } else { "s" },
                m.materials,
                if m.materials == 1 { "" } else { "s" },
                messages::bytes(m.bytes)
            );
            out!("  bounds {} .. {}", v3(m.bounds_min), v3(m.bounds_max));
            if m.vertices.saturating_sub(m.columns) != 2 {
                out!(
                    "  warning: not the 2 bounds corners a bake writes (an optimizer drops unused vertices): an \
                     engine's culling box is then the rest pose's; docs/PLAYBACK.md, \"Optimizers\""
                );
            }
        }
    }
}

/// `vatbake preview`'s text: where the sheet went, and the other files.
pub fn preview(report: &vatbake::preview::PreviewReport) {
    let Some((sheet, others)) = report.files.split_first() else { return };
    out!(
        "drew {} → {}: {}, {} frames, {} view, {}×{} pixels",
        report.description.display(),
        sheet.display(),
        messages::count(report.clips, "clip"),
        report.frames,
        report.view,
        report.sheet_size[0],
        report.sheet_size[1]
    );
    for file in others {
        out!("  also {}", file.display());
    }
}

/// `vatbake verify`'s text: the verdict, a line per clip, then each finding.
pub fn verify(report: &vatbake::verify::VerifyReport) {
    out!(
        "{} {} against {}: {}, tolerance {:.3e} model units ({:.4}% of the diagonal {:.4}), {:.0} ms",
        messages::verdict(if report.passed { "passed" } else { "FAILED" }, report.passed),
        report.description.display(),
        report.source.display(),
        messages::count(report.clips.len(), "clip"),
        report.tolerance,
        if report.diagonal > 0.0 { 100.0 * report.tolerance / report.diagonal } else { 0.0 },
        report.diagonal,
        report.elapsed_ms
    );
    for c in &report.clips {
        // A bone bake stores no normals (its tolerance for them is 0), and between rows
        // only what was compared there is said.
        let normals = if report.normal_tolerance_degrees > 0.0 {
            format!(", normals {:.2}°", c.max_normal_error_degrees)
        } else {
            String::new()
        };
        let between = if c.off_row_times > 0 {
            format!(", between rows {:.3e} ({:.4}%)", c.off_row_max_error, 100.0 * c.off_row_max_error_fraction)
        } else {
            String::new()
        };
        out!(
            "  {} {:<24} rows {:>4}..{:<4} max {:.3e} ({:.4}%) at row {}, mean {:.3e} ({:.5}%){normals}{between}",
            if c.passed { " " } else { "!" },
            format!("\"{}\"", c.name),
            c.row,
            c.row + c.rows_compared,
            c.max_error,
            100.0 * c.max_error_fraction,
            c.worst_row,
            c.mean_error,
            100.0 * c.mean_error_fraction,
        );
    }
    for l in &report.lods {
        out!(
            "  {} {:<24} {} points through their own columns, rows 0..{} max {:.3e} ({:.4}%)",
            if l.passed { " " } else { "!" },
            l.file,
            l.points,
            l.rows_compared,
            l.max_error,
            100.0 * l.max_error_fraction
        );
    }
    for f in &report.findings {
        out!("  {}: {}", f.code, f.message);
    }
}

/// `roster --verify`: a line per unit, each finding, a total; exit 1 unless every unit passed.
pub fn roster_verify(report: &vatbake::roster::RosterVerifyReport, output: &crate::args::Output) -> anyhow::Result<u8> {
    if output.json {
        out!("{}", serde_json::to_string_pretty(report)?);
    } else if !output.quiet {
        for unit in &report.units {
            let worst = unit.report.as_ref().and_then(|r| {
                r.clips
                    .iter()
                    .map(|c| c.max_error_fraction)
                    .max_by(f32::total_cmp)
                    .map(|f| (f, r.tolerance / r.diagonal))
            });
            out!(
                "{:<28} {:>7} {:>9.0} ms{}",
                unit.name,
                unit.status,
                unit.ms,
                worst.map_or(String::new(), |(f, t)| format!(
                    "  worst clip {:.4}% of the diagonal (tolerance {:.4}%)",
                    100.0 * f,
                    100.0 * t
                ))
            );
            for f in unit.report.iter().flat_map(|r| &r.findings) {
                out!("  {}: {}", f.code, f.message);
            }
        }
        out!(
            "{} units: {} passed, {} failed, {} not verified; {:.1} s",
            report.units.len(),
            report.passed,
            report.failed,
            report.errors,
            report.ms / 1000.0
        );
    }
    for unit in report.units.iter().filter(|u| u.status == "error") {
        messages::error(&format!("unit \"{}\": {}", unit.name, unit.error.as_deref().unwrap_or("")));
    }
    Ok(if report.passed == report.units.len() { 0 } else { messages::EXIT_FINDINGS })
}

/// `roster --preview`: one line per unit unless quiet, the failures as errors.
pub fn roster_preview(
    report: &vatbake::roster::RosterPreviewReport,
    output: &crate::args::Output,
) -> anyhow::Result<u8> {
    if output.json {
        out!("{}", serde_json::to_string_pretty(report)?);
    } else if !output.quiet {
        for unit in report.units.iter().filter(|u| u.sheet.is_some()) {
            out!("{:<28} {}", unit.name, unit.sheet.as_deref().map(|p| p.display().to_string()).unwrap_or_default());
        }
        out!(
            "{} units: {} drawn, {} not; {:.1} s",
            report.units.len(),
            report.drawn,
            report.errors,
            report.ms / 1000.0
        );
    }
    for unit in report.units.iter().filter(|u| u.error.is_some()) {
        messages::error(&format!("unit \"{}\": {}", unit.name, unit.error.as_deref().unwrap_or("")));
    }
    Ok(if report.errors == 0 { 0 } else { messages::EXIT_INPUT })
}

/// `vatbake inspect MODEL`: the model, then what a bake with no flags would write.
fn source_inspection(s: &vatbake::inspect::SourceSummary) {
    out!("{}: a source model, {}", messages::bold(&s.file.display().to_string()), messages::bytes(s.bytes));
    let scenes = match s.scenes {
        0 | 1 => messages::count(s.scenes, "scene"),
        n => format!("{n} scenes (the default: {})", s.scene),
    };
    out!("  {scenes}, {} mesh{}", s.meshes, if s.meshes == 1 { "" } else { "es" });
    out!(
        "  {} points, {} triangles, {} nodes; {} skin{} with {} joints",
        s.points,
        s.triangles,
        s.nodes,
        s.skins,
        if s.skins == 1 { "" } else { "s" },
        s.joints
    );
    for m in &s.morphs {
        let name = m.name.as_deref().map_or(String::new(), |n| format!(" \"{n}\""));
        let names = if m.target_names.is_empty() { String::new() } else { format!(" ({})", m.target_names.join(", ")) };
        out!("  morphs: mesh {}{name}: {}{names}", m.mesh, messages::count(m.targets, "target"));
    }
    let required = |e: &String| if s.extensions_required.contains(e) { format!("{e} (required)") } else { e.clone() };
    match s.extensions_used.is_empty() {
        true => out!("  extensions: none"),
        false => out!("  extensions: {}", s.extensions_used.iter().map(required).collect::<Vec<_>>().join(", ")),
    }
    out!("  {}", messages::count(s.clips.len(), "clip"));
    for c in &s.clips {
        out!(
            "  clip {:<24} → {:<10} {:>8.3} s",
            format!("\"{}\"", c.name),
            c.slot.as_deref().unwrap_or("(no slot)"),
            c.duration_s
        );
    }
    for w in &s.warnings {
        out!("  warning: {w}");
    }
    match (&s.default_bake, &s.default_bake_error) {
        (Some(b), _) => {
            out!(
                "  a bake with no flags: {} points × {} rows in {}, texture {}×{} {} (GPU {}), rest mesh {}",
                b.points,
                b.rows,
                messages::count(b.clips.len(), "clip"),
                b.width,
                b.height,
                messages::bytes(b.texture_bytes),
                messages::bytes(b.gpu_bytes),
                messages::bytes(b.mesh_bytes)
            );
            // The baked clips when they are not the file's (takes split per node merged).
            let same = b.clips.len() == s.clips.len() && b.clips.iter().zip(&s.clips).all(|(b, c)| b.name == c.name);
            for c in b.clips.iter().filter(|_| !same) {
                out!(
                    "    baked clip {:<18} → {:<10} {:>5} rows",
                    format!("\"{}\"", c.name),
                    c.slot.as_deref().unwrap_or("(no slot)"),
                    c.rows
                );
            }
            // The loader's, said above, once.
            for w in b.warnings.iter().filter(|w| !s.warnings.contains(&w.message)) {
                out!("    warning: {}", w.message);
            }
        }
        (None, Some(error)) => out!("  a bake with no flags would fail: {error}"),
        (None, None) => {}
    }
}
