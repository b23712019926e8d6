//! What the binary prints of the library's reports: the audit's text, the roster's
//! table, progress and grouped findings. Only here and in `messages`.

use std::io::IsTerminal;

use vatbake::audit::AuditReport;
use vatbake::roster::{RosterReport, RosterWatch, UnitResult};

use crate::cli::AuditFormat;
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
    let units = format!("{} unit{}", report.units, if report.units == 1 { "" } else { "s" });
    if report.findings == 0 {
        out!("audit: {units}, no findings ({took})");
    } else {
        out!(
            "audit: {units}, {} with findings, {} finding{} ({took})",
            report.units_with_findings,
            report.findings,
            if report.findings == 1 { "" } else { "s" }
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
            if let Some(e) = &result.error {
                bar.println(format!("failed {}: {e}", result.name));
            }
        } else if self.lines {
            match &result.error {
                Some(e) => eprintln!("[{done}/{total}] failed {}: {e}", result.name),
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
    out!("{:<28} {:>8} {:>8} {:>6} {:>11} {:>9}", "unit", "status", "points", "rows", "texture", "ms");
    for unit in &report.units {
        let num = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
        out!(
            "{:<28} {:>8} {:>8} {:>6} {:>11} {:>9.0}",
            unit.name,
            unit.status,
            num(unit.points),
            num(unit.rows),
            unit.texture_bytes.map_or("-".into(), messages::bytes),
            unit.ms
        );
    }
    out!(
        "{} units: {} baked, {} unchanged, {} failed; textures {}, meshes {}; {:.1} s",
        report.units.len(),
        report.baked,
        report.skipped,
        report.failed,
        messages::bytes(report.total_texture_bytes),
        messages::bytes(report.total_mesh_bytes),
        report.ms / 1000.0
    );
}
