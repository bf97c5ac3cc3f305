//! The text report: a headline per run, a summary table, then for each
//! crashed run its root cause, evidence (line numbers, the decisive line
//! marked `>`), hint, symptoms with what explains them, and notices.

use std::fmt::Write as _;

use comfy_table::{presets, ContentArrangement, Table};

use super::escape::{clip, for_terminal};
use super::vitals::{degraded_details, duration, hang_details, throughput_block};
use crate::engine::diagnosis::{phase, Diagnosis, Outcome, Run, Verdict};

/// Longest log line shown in text output (JSON keeps whole lines).
const MAX_SHOWN: usize = 240;
/// Symptoms shown without `-v`.
const SYMPTOMS_SHOWN: usize = 6;

/// What the text report shows.
#[derive(Debug, Clone, Default)]
pub struct TextOptions {
    /// Also show benign lines, every symptom, and every unit's runs.
    pub verbose: bool,
}

/// Renders the whole report.
pub fn render(diagnosis: &Diagnosis, options: &TextOptions) -> String {
    let mut out = String::new();
    let layout = Layout::of(diagnosis, !options.verbose);
    let shown: Vec<&Run> = layout.shown.iter().map(|&i| &diagnosis.runs[i]).collect();
    // A run's number in this report, from its 1-based index in `runs`.
    let number_of = |index: Option<usize>| {
        index.and_then(|i| layout.shown.iter().position(|&s| s + 1 == i)).map(|p| p + 1)
    };
    for run in &shown {
        let _ = writeln!(out, "{}", headline(run, number_of));
    }
    for (source, units) in &layout.folded {
        let _ = writeln!(out, "{}", folded_line(source, units));
    }
    if diagnosis.runs.is_empty() {
        out.push_str("no lines to judge\n");
    }
    out.push('\n');
    out.push_str(&summary_table(&shown));
    let numbered: Vec<(usize, &Run)> = shown.iter().enumerate().map(|(i, r)| (i + 1, *r)).collect();
    let throughput = throughput_block(&numbered, options.verbose);
    if !throughput.is_empty() {
        out.push('\n');
        out.push_str(&throughput);
    }
    out.push('\n');
    for (index, run) in shown.iter().enumerate() {
        let show = matches!(run.outcome, Outcome::Crash | Outcome::Hung)
            || run.degraded.is_some()
            || !run.notices.is_empty()
            || (options.verbose && !run.benign.is_empty());
        if show {
            out.push('\n');
            let vs = run.degraded.as_ref().and_then(|d| number_of(d.vs_run));
            run_details(&mut out, index + 1, run, vs, options);
        }
    }
    for input in &diagnosis.inputs {
        for notice in &input.notices {
            let _ = writeln!(out, "\nnote: {}: {}", for_terminal(&input.name), for_terminal(notice));
        }
    }
    let verdict = match diagnosis.verdict {
        Verdict::Crash => "crash",
        Verdict::Hung => "hung",
        Verdict::NoCrash => "no crash",
    };
    let _ = writeln!(out, "\nverdict: {verdict} (exit {})", diagnosis.exit_code());
    out
}

/// Units whose names are listed on one line at most.
const FOLDED_NAMES_SHOWN: usize = 8;

/// Which runs the report shows, in what order, and which units it folds.
struct Layout<'d> {
    /// Indices of the runs shown: per source, the units with a crashed run
    /// first, then the others, each unit's runs in input order.
    shown: Vec<usize>,
    /// Per source, the units with nothing notable (no crash, no proof of
    /// readiness, no start-up phase, no symptom, no notice), folded into
    /// one line when a source holds several units.
    /// (`None`: the lines that name no unit, a boot's kernel lines.)
    folded: Vec<(&'d str, Vec<Option<&'d str>>)>,
}

impl<'d> Layout<'d> {
    /// The layout of `diagnosis`; `fold`: fold the quiet units (not with
    /// `-v`, which shows every run).
    fn of(diagnosis: &'d Diagnosis, fold: bool) -> Self {
        let mut shown = Vec::new();
        let mut folded = Vec::new();
        let mut sources: Vec<&str> = Vec::new();
        for run in &diagnosis.runs {
            if !sources.contains(&run.source.as_str()) {
                sources.push(&run.source);
            }
        }
        for source in sources {
            // Each unit's runs, units in order of their first run.
            let mut units: Vec<(Option<&str>, Vec<usize>)> = Vec::new();
            for (i, run) in diagnosis.runs.iter().enumerate().filter(|(_, r)| r.source == source) {
                let unit = run.unit.as_deref();
                match units.iter_mut().find(|(u, _)| *u == unit) {
                    Some((_, runs)) => runs.push(i),
                    None => units.push((unit, vec![i])),
                }
            }
            let several = fold && units.len() > 1;
            let crashed = |runs: &[usize]| runs.iter().any(|&i| diagnosis.runs[i].outcome == Outcome::Crash);
            let mut quiet = Vec::new();
            for (_, runs) in units.iter().filter(|(_, runs)| crashed(runs)) {
                shown.extend(runs);
            }
            for (unit, runs) in units.iter().filter(|(_, runs)| !crashed(runs)) {
                let notable = runs.iter().any(|&i| is_notable(&diagnosis.runs[i]));
                match unit {
                    _ if !several || notable => shown.extend(runs),
                    Some(name) => quiet.push(Some(*name)),
                    None => quiet.push(None),
                }
            }
            if !quiet.is_empty() {
                folded.push((source, quiet));
            }
        }
        Layout { shown, folded }
    }
}

/// Does a run say anything worth a line of its own?
fn is_notable(run: &Run) -> bool {
    run.outcome == Outcome::Crash
        || run.ready.is_some()
        || run.phase.is_some()
        || !run.symptoms.is_empty()
        || !run.notices.is_empty()
}

fn folded_line(source: &str, units: &[Option<&str>]) -> String {
    let named: Vec<&str> = units.iter().flatten().copied().collect();
    let unnamed = named.len() < units.len();
    let mut names: Vec<String> =
        named.iter().take(FOLDED_NAMES_SHOWN).map(|u| for_terminal(u).into_owned()).collect();
    if named.len() > FOLDED_NAMES_SHOWN {
        names.push(format!("and {} more", named.len() - FOLDED_NAMES_SHOWN));
    }
    let source = for_terminal(source);
    let count = match named.len() {
        0 => return format!("{source}  lines that name no unit: nothing notable"),
        1 => "1 other unit".to_string(),
        n => format!("{n} other units"),
    };
    let rest = if unnamed { " (and lines that name no unit)" } else { "" };
    format!("{source}  {count} with nothing notable: {}{rest}", names.join(", "))
}

fn place(run: &Run) -> String {
    format!("{}:{}-{}", for_terminal(&run.source), run.first_line, run.last_line)
}

fn headline(run: &Run, number_of: impl Fn(Option<usize>) -> Option<usize>) -> String {
    let detail = match (&run.root_cause, run.outcome) {
        (Some(cause), _) => format!(
            "{} [{}, {} confidence]",
            for_terminal(&cause.title),
            cause.category,
            cause.confidence.name()
        ),
        (None, Outcome::Healthy) => {
            let proof = run.ready.as_ref().map(|r| format!(" (a generation completed at line {})", r.line));
            let serving = if run.phase.as_deref() == Some(phase::SERVING) { " and serving" } else { "" };
            format!("ready{}{serving}, nothing fatal", proof.unwrap_or_default())
        }
        (None, Outcome::Starting) => match run.phase.as_deref() {
            Some(phase::LISTENING) => {
                "listening, but no generation proven yet (not ready), nothing fatal".to_string()
            }
            Some(phase) => format!("starting up ({phase}), not ready yet, nothing fatal"),
            None => "starting up, not ready yet, nothing fatal".to_string(),
        },
        (None, Outcome::Stopped) => "stopped in an orderly way".to_string(),
        (None, Outcome::Hung) => match &run.hang {
            Some(hang) => format!(
                "work pending at line {} and no progress for {} after it",
                hang.last_progress.line,
                duration(hang.silent_seconds)
            ),
            None => "work pending and no progress since".to_string(),
        },
        (None, _) => "no sign of a crash (no start, ready or progress lines to judge it by)".to_string(),
    };
    let outcome = match run.outcome {
        Outcome::Crash => "CRASH".to_string(),
        Outcome::Hung => "HUNG".to_string(),
        other => other.name().to_string(),
    };
    let collapse = run.degraded.as_ref().map(|d| {
        let against = match number_of(d.vs_run) {
            Some(number) => format!("run {number}"),
            None => "an earlier run".to_string(),
        };
        format!("; DEGRADED: {:.0}% slower per request than {against}", -d.change * 100.0)
    });
    let unit = run.unit.as_deref().map(|u| format!(" ({})", for_terminal(u))).unwrap_or_default();
    format!("{}{unit}  {outcome}  {detail}{}", place(run), collapse.unwrap_or_default())
}

fn summary_table(runs: &[&Run]) -> String {
    let mut table = Table::new();
    table.load_preset(presets::UTF8_HORIZONTAL_ONLY);
    // Long names stay whole: a table wider than the terminal beats a path
    // or unit name broken in the middle.
    table.set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(vec!["source", "run", "lines", "unit", "outcome", "root cause", "confidence"]);
    for (index, run) in runs.iter().enumerate() {
        let (category, confidence) = match &run.root_cause {
            Some(c) => (c.category.clone(), c.confidence.name().to_string()),
            None => ("-".to_string(), "-".to_string()),
        };
        table.add_row(vec![
            for_terminal(&run.source).into_owned(),
            (index + 1).to_string(),
            format!("{}-{}", run.first_line, run.last_line),
            run.unit.as_deref().map_or_else(|| "-".to_string(), |u| for_terminal(u).into_owned()),
            run.outcome.name().to_string(),
            category,
            confidence,
        ]);
    }
    format!("{table}\n")
}

fn shown_line(text: &str) -> String {
    clip(&for_terminal(text), MAX_SHOWN).into_owned()
}

/// The details of one run (root cause, evidence, hint, symptoms, notices),
/// as the full report shows them.
pub fn render_run(run: &Run, options: &TextOptions) -> String {
    let mut out = String::new();
    run_details(&mut out, 1, run, None, options);
    out
}

/// `vs_number`: the number of the run a collapse is compared with.
fn run_details(out: &mut String, number: usize, run: &Run, vs_number: Option<usize>, options: &TextOptions) {
    let unit = run.unit.as_deref().map(|u| format!(" ({})", for_terminal(u))).unwrap_or_default();
    let degraded = if run.degraded.is_some() { ", degraded" } else { "" };
    let _ = writeln!(out, "Run {number}: {}{unit}: {}{degraded}", place(run), run.outcome.name());
    if let Some(hang) = &run.hang {
        hang_details(out, hang);
        let _ =
            writeln!(out, "  > {:>6} │ {}", hang.last_progress.line, shown_line(&hang.last_progress.text));
    }
    if let Some(collapse) = &run.degraded {
        degraded_details(out, collapse, vs_number, options.verbose);
        out.push_str("  Evidence:\n");
        for e in &collapse.evidence {
            let _ = writeln!(out, "    {:>6} │ {}", e.line, shown_line(&e.text));
        }
    }
    if let Some(cause) = &run.root_cause {
        let _ = writeln!(out, "  Root cause: {}", for_terminal(&cause.title));
        let rule = cause.rule.as_deref().unwrap_or("no rule");
        let _ = writeln!(
            out,
            "              {rule} · {} · {} confidence",
            cause.category,
            cause.confidence.name()
        );
        out.push_str("  Evidence:\n");
        let decisive = cause.evidence.first().map(|e| e.line);
        let mut lines: Vec<_> = cause.evidence.iter().collect();
        lines.sort_by_key(|e| e.line);
        lines.dedup_by_key(|e| e.line);
        for e in lines {
            let mark = if Some(e.line) == decisive { '>' } else { ' ' };
            let _ = writeln!(out, "  {mark} {:>6} │ {}", e.line, shown_line(&e.text));
        }
        if let Some(hint) = &cause.hint {
            let _ = writeln!(out, "  Hint: {}", for_terminal(hint));
        }
    }
    if !run.symptoms.is_empty() {
        out.push_str("  Symptoms (consequences, not the cause):\n");
        let limit = if options.verbose { usize::MAX } else { SYMPTOMS_SHOWN };
        for s in run.symptoms.iter().take(limit) {
            let _ = writeln!(out, "    {:>6} │ {}", s.line, shown_line(&s.text));
            let _ = writeln!(out, "           └ {}: {}", s.rule, for_terminal(&s.why));
        }
        if run.symptoms.len() > limit {
            let _ = writeln!(out, "    … {} more (-v shows all)", run.symptoms.len() - limit);
        }
    }
    if options.verbose && !run.benign.is_empty() {
        out.push_str("  Benign (scary but harmless):\n");
        for b in &run.benign {
            let _ = writeln!(out, "    {:>6} │ {}", b.line, shown_line(&b.text));
            let _ = writeln!(out, "           └ {}: {}", b.rule, for_terminal(&b.why));
        }
    }
    for notice in &run.notices {
        let _ = writeln!(out, "  Notice: {}", for_terminal(notice));
    }
}
