//! The text report: a headline per run, a table of the runs when there
//! are several, then for each run worth it its details (see
//! [`details`](super::details)), and the verdict.
//!
//! The layout fits the [`Terminal`]: on a known width, prose wraps under a
//! hanging indent and the table arranges its columns to fit; in a pipe,
//! every line is whole.

use std::collections::HashMap;
use std::fmt::Write as _;

use comfy_table::{presets, ContentArrangement, Table};

use super::details::run_details;
use super::escape::for_terminal;
use super::fit::{push_wrapped, width_of};
use super::paint::Paint;
use super::terminal::Terminal;
use super::vitals::{duration, throughput_block};
use super::{place, TextOptions};
use crate::engine::diagnosis::{line_span, phase, Diagnosis, Outcome, Run, Verdict, WENT_ON};

/// The indent of a headline's or note's continuation lines.
const HANGING: &str = "  ";

/// Renders the whole report.
pub(super) fn render(diagnosis: &Diagnosis, options: &TextOptions) -> String {
    let mut out = String::new();
    let terminal = &options.terminal;
    let paint = Paint(terminal.color);
    let layout = Layout::of(diagnosis, !options.verbose);
    let shown: Vec<&Run> = layout.shown.iter().map(|&i| &diagnosis.runs[i]).collect();
    for run in shown.iter().filter(|r| !r.history) {
        headline(run, paint).push(&mut out, terminal.width);
        if let Some(crash_loop) = super::history::crash_loop(&shown, run) {
            push_wrapped(&mut out, terminal.width, "  ", "    ", &crash_loop);
        }
    }
    let history: Vec<&Run> = shown.iter().copied().filter(|r| r.history).collect();
    if !history.is_empty() {
        out.push_str("Earlier launches (history; --any-launch lets them decide):\n");
        for entry in super::history::entries(&history) {
            push_wrapped(&mut out, terminal.width, "  ", "    ", &entry);
        }
    }
    for (source, units) in &layout.folded {
        push_wrapped(&mut out, terminal.width, "", HANGING, &folded_line(source, units));
    }
    if diagnosis.runs.is_empty() {
        out.push_str("no lines to judge\n");
    }
    // Earlier launches have their lines above; the table is the current
    // ones' (every run's with -v).
    let tabled: Vec<&Run> = shown.iter().copied().filter(|r| options.verbose || !r.history).collect();
    if tabled.len() > 1 {
        out.push('\n');
        out.push_str(&summary_table(&tabled[..tabled.len().min(TABLE_ROWS)], terminal));
        if tabled.len() > TABLE_ROWS {
            let more = tabled.len() - TABLE_ROWS;
            let _ = writeln!(out, "{more} more runs are not in the table (--format json lists every run)");
        }
    }
    for recurring in &diagnosis.recurring {
        push_wrapped(&mut out, terminal.width, "", HANGING, &for_terminal(&recurring.describe()));
    }
    let numbered: Vec<(usize, &Run)> = shown.iter().map(|r| (r.number, *r)).collect();
    let throughput = throughput_block(&numbered, options.verbose, terminal);
    if !throughput.is_empty() {
        out.push('\n');
        out.push_str(&throughput);
    }
    for run in &shown {
        if super::worth_details(run, options.verbose) && (!run.history || options.verbose) {
            out.push('\n');
            let vs = run.degraded.as_ref().and_then(|d| d.vs_run);
            run_details(&mut out, run.number, run, vs, options);
        }
    }
    for input in &diagnosis.inputs {
        for notice in &input.notices {
            out.push('\n');
            let note = format!("note: {}: {}", for_terminal(&input.name), for_terminal(notice));
            push_wrapped(&mut out, terminal.width, "", HANGING, &note);
        }
    }
    let verdict = match diagnosis.verdict {
        Verdict::Crash => "crash",
        Verdict::Hung => "hung",
        Verdict::Degraded => "degraded",
        Verdict::NoCrash => "no crash",
    };
    let _ =
        writeln!(out, "\nverdict: {} (exit {})", paint.verdict(diagnosis.verdict, verdict), diagnosis.exit());
    out
}

/// Units whose names are listed on one line at most.
const FOLDED_NAMES_SHOWN: usize = 8;

/// Which runs the report shows, in what order, and which units it folds.
pub(super) struct Layout<'d> {
    /// Indices of the runs shown: per source, the units with a crashed run
    /// first, then the others, each unit's runs in input order.
    pub(super) shown: Vec<usize>,
    /// Per source, the units with nothing notable (no crash, no proof of
    /// readiness, no start-up phase, no symptom, no notice), folded into
    /// one line when a source holds several units.
    /// (`None`: the lines that name no unit, a boot's kernel lines.)
    pub(super) folded: Vec<(&'d str, Vec<Option<&'d str>>)>,
}

impl<'d> Layout<'d> {
    /// The layout of `diagnosis`; `fold`: fold the quiet units (not with
    /// `-v`, which shows every run).
    pub(super) fn of(diagnosis: &'d Diagnosis, fold: bool) -> Self {
        let mut shown = Vec::new();
        let mut folded = Vec::new();
        // Each source's units in order of their first run, each unit's
        // runs in order, sources in order of their first run: one pass,
        // however many files a directory held.
        type Units<'d> = Vec<(Option<&'d str>, Vec<usize>)>;
        let mut sources: Vec<(&str, Units<'d>)> = Vec::new();
        let mut source_at: HashMap<&str, usize> = HashMap::new();
        let mut unit_at: HashMap<(&str, Option<&str>), usize> = HashMap::new();
        for (i, run) in diagnosis.runs.iter().enumerate() {
            let (source, unit) = (run.source.as_str(), run.unit.as_deref());
            let s = *source_at.entry(source).or_insert_with(|| {
                sources.push((source, Vec::new()));
                sources.len() - 1
            });
            let units = &mut sources[s].1;
            let u = *unit_at.entry((source, unit)).or_insert_with(|| {
                units.push((unit, Vec::new()));
                units.len() - 1
            });
            units[u].1.push(i);
        }
        for (source, units) in sources {
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

fn headline(run: &Run, paint: Paint) -> Headline {
    let detail = match (&run.root_cause, run.outcome) {
        (Some(cause), _) => format!(
            "{} [{}, {} confidence]",
            for_terminal(&cause.title),
            cause.category,
            cause.confidence.name()
        ),
        (None, Outcome::Healthy | Outcome::Degraded) => {
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
        (None, _) if survived(run).is_some() => "no crash".to_string(),
        (None, _) => "no sign of a crash (no start, ready or progress lines to judge it by)".to_string(),
    };
    let detail = match survived(run).filter(|_| run.root_cause.is_none()) {
        Some(line) => format!("{detail}; survived the error at line {line}: the process went on"),
        None => detail,
    };
    let outcome = match run.outcome {
        Outcome::Crash => "CRASH".to_string(),
        Outcome::Hung => "HUNG".to_string(),
        Outcome::Degraded => "DEGRADED".to_string(),
        other => other.name().to_string(),
    };
    let outcome = paint.outcome(run.outcome, &outcome);
    let collapse = run.degraded.as_ref().map(|d| {
        let against = match d.vs_run {
            Some(number) => format!("run {number}"),
            None => "an earlier run".to_string(),
        };
        let slower = format!("{:.0}% slower per request than {against}", -d.change * 100.0);
        if run.outcome == Outcome::Degraded {
            format!("; {slower}")
        } else {
            format!("; {}: {slower}", paint.degraded("DEGRADED"))
        }
    });
    let unit = run.unit.as_deref().map(|u| format!(" ({})", for_terminal(u))).unwrap_or_default();
    Headline {
        lead: format!("{}{unit}  {outcome}", place(run)),
        detail: format!("{detail}{}", collapse.unwrap_or_default()),
    }
}

/// The line of the first error the run survived because its writer went
/// on, if any.
fn survived(run: &Run) -> Option<u64> {
    run.benign.iter().find(|b| b.why.starts_with(WENT_ON)).map(|b| b.line)
}

/// A run's headline: where and how it ended, then what happened.
struct Headline {
    /// `source:first-last (unit)  OUTCOME`.
    lead: String,
    /// The cause, or what the run reached.
    detail: String,
}

impl Headline {
    /// One line when it fits (always in a pipe); else the lead on a line
    /// of its own and the detail wrapped under it.
    fn push(&self, out: &mut String, width: Option<usize>) {
        let line = format!("{}  {}", self.lead, self.detail);
        if width.is_none_or(|width| width_of(&line) <= width) {
            let _ = writeln!(out, "{line}");
        } else {
            push_wrapped(out, width, "", HANGING, &self.lead);
            push_wrapped(out, width, HANGING, HANGING, &self.detail);
        }
    }
}

/// Most runs in the table: a longer one is read by a script, not a person.
const TABLE_ROWS: usize = 200;

/// The runs side by side, for a report of several: the number the rest
/// of the report calls each by (`Run 2`, the speed block), its outcome,
/// its unit (when the log names units) and file (when there are several),
/// its lines, the line that decided its outcome (to jump to), and how much
/// lies behind it: symptoms, lines ruled harmless (`-v` lists them) and
/// notices. Rows are in the headlines' order.
fn summary_table(runs: &[&Run], terminal: &Terminal) -> String {
    let mut table = Table::new();
    table.load_preset(presets::UTF8_HORIZONTAL_ONLY);
    // The layout is ours to decide (COLUMNS, a pipe), not comfy-table's.
    table.force_no_tty();
    match terminal.width {
        Some(width) => {
            table.set_content_arrangement(ContentArrangement::Dynamic);
            table.set_width(u16::try_from(width).unwrap_or(u16::MAX));
        }
        None => {
            table.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    let units = runs.iter().any(|r| r.unit.is_some());
    let files = runs.iter().any(|r| r.source != runs[0].source || r.last_source.is_some());
    let mut header = vec!["run", "outcome"];
    header.extend(units.then_some("unit"));
    header.extend(files.then_some("file"));
    header.extend(["lines", "decided at", "symptoms", "benign", "notices"]);
    table.set_header(header);
    for run in runs {
        let decided = deciding_line(run).map_or_else(|| "-".to_string(), |line| line.to_string());
        let mut row = vec![run.number.to_string(), run.outcome.name().to_string()];
        if units {
            row.push(run.unit.as_deref().map_or_else(|| "-".to_string(), |u| for_terminal(u).into()));
        }
        if files {
            row.push(for_terminal(&run.source).into());
        }
        row.extend([
            line_span(run.first_line, run.last_line, run.last_source.as_deref(), |f| for_terminal(f).into()),
            decided,
            run.symptoms.len().to_string(),
            run.benign.len().to_string(),
            run.notices.len().to_string(),
        ]);
        table.add_row(row);
    }
    format!("{table}\n")
}

/// The line that decided a run's outcome: the decisive evidence of a
/// crash, the last progress of a hang, the proof of readiness.
fn deciding_line(run: &Run) -> Option<u64> {
    let cause = run.root_cause.as_ref().and_then(|c| c.evidence.first()).map(|e| e.line);
    let hang = run.hang.as_ref().map(|h| h.last_progress.line);
    cause.or(hang).or(run.ready.as_ref().map(|r| r.line))
}
