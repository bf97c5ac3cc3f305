//! The vitals in the text report: each run's generation speed drawn as a
//! one-line sparkline on a scale common to all runs (so a collapse is seen
//! before it is read), a collapse with what changed, and a hang.
//!
//! On a known width the sparklines give up cells before the figures wrap,
//! and the prose wraps under a hanging indent.

use std::fmt::Write as _;

use super::escape::for_terminal;
use super::fit::{push_wrapped, width_of};
use super::paint::Paint;
use super::terminal::Terminal;
use crate::engine::diagnosis::{Degraded, Hang, Run};
use crate::vitals::{Point, Vitals};

/// The sparkline's glyphs, lowest first.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/// Most cells of a sparkline.
const MAX_CELLS: usize = 40;
/// Fewest cells a sparkline keeps on a narrow terminal.
const MIN_CELLS: usize = 8;
/// `  run 1   `: what comes before a sparkline.
const RUN_LABEL_WIDTH: usize = 10;
/// The indent of the lines under a run's sparkline.
const UNDER_SPARKLINE: &str = "          ";
/// Changed arguments shown without `-v`.
const CHANGED_ARGS_SHOWN: usize = 8;

/// The throughput block: one line per run that measured its speed (and,
/// for a degraded or hung run or with `verbose`, a line of its other
/// vitals), or nothing when none did. `runs` are numbered as in the report.
pub(super) fn throughput_block(runs: &[(usize, &Run)], verbose: bool, terminal: &Terminal) -> String {
    let measured: Vec<(usize, &Run)> = runs
        .iter()
        .copied()
        .filter(|(_, r)| r.vitals.as_ref().is_some_and(|v| v.generation_tok_s.is_some()))
        .collect();
    if measured.is_empty() {
        return String::new();
    }
    let top = measured
        .iter()
        .flat_map(|(_, r)| r.vitals.iter().flat_map(|v| v.series.iter().map(|p| p.tok_s)))
        .fold(0.0_f64, f64::max);
    let paint = Paint(terminal.color);
    let figures_of = |run: &Run| {
        let vitals = run.vitals.as_ref().expect("measured");
        let speed = vitals.generation_tok_s.as_ref().expect("measured");
        let running = vitals.running.as_ref().map(|r| r.median).unwrap_or(0.0);
        let mut figures = format!(
            "median {} tok/s, mean {}, at {} running",
            figure(speed.median),
            figure(speed.mean),
            figure(running)
        );
        if let Some(degraded) = &run.degraded {
            let _ = write!(figures, "  {} {}", paint.degraded("DEGRADED"), percent(degraded.change));
        }
        figures
    };
    // On a known width, the sparklines shrink (to a floor) so that the
    // widest figures still fit beside them.
    let widest_figures = measured.iter().map(|(_, run)| width_of(&figures_of(run))).max().unwrap_or(0);
    let cells = terminal.width.map_or(MAX_CELLS, |width| {
        width.saturating_sub(RUN_LABEL_WIDTH + 2 + widest_figures).clamp(MIN_CELLS, MAX_CELLS)
    });
    let lines: Vec<(String, String, Option<String>)> = measured
        .iter()
        .map(|(number, run)| {
            let vitals = run.vitals.as_ref().expect("measured");
            let notable = verbose || run.degraded.is_some() || run.hang.is_some();
            let details = notable.then(|| other_vitals(vitals));
            (format!("run {number:<3} {}", sparkline(&vitals.series, top, cells)), figures_of(run), details)
        })
        .collect();
    let spark_width = lines.iter().map(|(spark, _, _)| spark.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    let title = "Generation speed (tok/s while requests ran, one scale for all runs):";
    push_wrapped(&mut out, terminal.width, "", "  ", title);
    for (spark, figures, details) in lines {
        let pad = spark_width - spark.chars().count();
        let line = format!("{spark}{:pad$}  {figures}", "");
        push_wrapped(&mut out, terminal.width, "  ", UNDER_SPARKLINE, &line);
        if let Some(details) = details {
            push_wrapped(&mut out, terminal.width, UNDER_SPARKLINE, UNDER_SPARKLINE, &details);
        }
    }
    out
}

/// `51 progress lines over 9m 23s, KV cache up to 91%, queue up to 960,
/// CUDA graph off in 0% of decode lines, 0 preemptions`.
fn other_vitals(vitals: &Vitals) -> String {
    let mut parts = vec![match vitals.active.seconds {
        Some(seconds) => {
            format!("{} progress lines over {}", vitals.progress_lines, duration(seconds as u64))
        }
        None => format!("{} progress lines", vitals.progress_lines),
    }];
    if let Some(usage) = vitals.max_kv_usage {
        parts.push(format!("KV cache up to {:.0}%", usage * 100.0));
    }
    if let Some(queue) = &vitals.queue {
        let grew = if queue.grew { ", growing to the end" } else { "" };
        parts.push(format!("queue up to {}{grew}", figure(queue.max as f64)));
    }
    if let Some(off) = vitals.cuda_graph_off {
        parts.push(format!("CUDA graph off in {:.0}% of decode lines", off * 100.0));
    }
    let rate =
        vitals.preemptions_per_minute.map(|r| format!(" ({} a minute)", figure(r))).unwrap_or_default();
    let rate = if vitals.preemptions > 0 { rate } else { String::new() };
    parts.push(format!("{} preemptions{rate}", vitals.preemptions));
    parts.join(", ")
}

/// The series as at most `cells` bars, `top` the full bar.
pub(super) fn sparkline(series: &[Point], top: f64, cells: usize) -> String {
    if series.is_empty() || top <= 0.0 {
        return String::new();
    }
    let per_cell = series.len().div_ceil(cells.max(1));
    series
        .chunks(per_cell)
        .map(|cell| {
            let mean = cell.iter().map(|p| p.tok_s).sum::<f64>() / cell.len() as f64;
            let level = ((mean / top) * BARS.len() as f64).ceil() as usize;
            BARS[level.clamp(1, BARS.len()) - 1]
        })
        .collect()
}

/// The indent of a collapse's continuation lines.
const COLLAPSE_INDENT: &str = "            ";

/// The collapse of a run, for its details; `vs_number` is the compared
/// run's number in the report.
pub(super) fn degraded_details(
    out: &mut String,
    degraded: &Degraded,
    vs_number: Option<usize>,
    verbose: bool,
    terminal: &Terminal,
) {
    let width = terminal.width;
    let against = match vs_number {
        Some(number) => format!("run {number}"),
        None => "an earlier run not in this report".to_string(),
    };
    let collapse = format!(
        "{} {} against {} in {against} ({}), at {} running requests against {}",
        figure(degraded.after),
        degraded.metric,
        figure(degraded.before),
        percent(degraded.change),
        figure(degraded.running.after),
        figure(degraded.running.before),
    );
    push_wrapped(out, width, "  Collapse: ", COLLAPSE_INDENT, &collapse);
    let generation = format!(
        "generation {} tok/s against {}",
        figure(degraded.generation_tok_s.after),
        figure(degraded.generation_tok_s.before)
    );
    push_wrapped(out, width, COLLAPSE_INDENT, COLLAPSE_INDENT, &generation);
    if !degraded.changed_args.is_empty() {
        let _ = writeln!(out, "  Changed since {against}:");
        let limit = if verbose { usize::MAX } else { CHANGED_ARGS_SHOWN };
        for arg in degraded.changed_args.iter().take(limit) {
            let shown = |value: &Option<String>| {
                value.as_deref().map_or_else(|| "(not printed)".to_string(), |v| for_terminal(v).into_owned())
            };
            let change =
                format!("{}: {} → {}", for_terminal(&arg.name), shown(&arg.before), shown(&arg.after));
            push_wrapped(out, width, "    ", "      ", &change);
        }
        if degraded.changed_args.len() > limit {
            let _ = writeln!(out, "    … {} more (-v shows all)", degraded.changed_args.len() - limit);
        }
    }
}

/// How a run hung, for its details.
pub(super) fn hang_details(out: &mut String, hang: &Hang, terminal: &Terminal) {
    let mut pending = Vec::new();
    if let Some(running) = hang.running.filter(|n| *n > 0) {
        pending.push(format!("{running} running"));
    }
    if let Some(queued) = hang.queued.filter(|n| *n > 0) {
        pending.push(format!("{queued} waiting"));
    }
    let hung = format!(
        "no progress for {} after line {} ({}), up to line {}",
        duration(hang.silent_seconds),
        hang.last_progress.line,
        pending.join(", "),
        hang.last_line
    );
    push_wrapped(out, terminal.width, "  Hung: ", "        ", &hung);
}

/// `14m 20s`, `2h 05m`, `45s`.
pub(super) fn duration(seconds: u64) -> String {
    match seconds {
        s if s >= 3600 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m {:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

/// A figure with the precision it deserves: `3,670`, `28.4`, `3.58`, `0.229`.
pub(super) fn figure(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 100.0 {
        let whole = format!("{:.0}", magnitude);
        let mut grouped = String::new();
        for (i, digit) in whole.chars().enumerate() {
            if i > 0 && (whole.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(digit);
        }
        if value < 0.0 {
            grouped.insert(0, '-');
        }
        grouped
    } else if value.fract() == 0.0 {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else if magnitude >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// `-94%`, `+12%`.
fn percent(change: f64) -> String {
    format!("{:+.0}%", change * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(tok_s: f64) -> Point {
        Point { line: 1, seconds: None, tok_s, running: 1.0 }
    }

    #[test]
    fn sparklines_share_one_scale() {
        let fast: Vec<Point> = [3700.0, 3800.0, 3600.0].map(point).to_vec();
        let slow: Vec<Point> = [236.0, 240.0].map(point).to_vec();
        assert_eq!(sparkline(&fast, 3800.0, MAX_CELLS), "███");
        assert_eq!(sparkline(&slow, 3800.0, MAX_CELLS), "▁▁");
        assert_eq!(sparkline(&[point(1900.0)], 3800.0, MAX_CELLS), "▄");
        let long: Vec<Point> = (0..100).map(|i| point(i as f64)).collect();
        assert_eq!(sparkline(&long, 100.0, MAX_CELLS).chars().count(), 34);
    }

    #[test]
    fn figures_read_like_a_person_writes_them() {
        assert_eq!(figure(3670.44), "3,670");
        assert_eq!(figure(1_234_567.0), "1,234,567");
        assert_eq!(figure(28.44), "28.4");
        assert_eq!(figure(3.583), "3.58");
        assert_eq!(figure(0.229), "0.229");
        assert_eq!(figure(8.0), "8");
        assert_eq!(duration(860), "14m 20s");
        assert_eq!(duration(7500), "2h 05m");
    }
}
