//! Golden cases: a folder with `input.log`, `case.json` (labels) and the
//! blessed reports (`expected.json`, `expected.txt`, `expected.md`).
//! `logdiag test DIR` and `cargo test` check each case the same way:
//!
//! - labels: the verdict; for a crash, a reported root-cause category in
//!   `accept` and an evidence line containing one of `evidence` (unless the
//!   case is `"scorable": "verdict-only"`); for a log of several units, the
//!   outcome of each unit named in `units`;
//! - the report: the JSON diagnosis equals `expected.json`, and the text
//!   report at 80 columns `expected.txt` (the founding incidents' Markdown
//!   `expected.md` too) when blessed, so any change in what the tool says
//!   about a real incident, to a script or to a person, is reviewed
//!   (re-bless with `--bless`, read the diff).
//!
//! A case labelled from its thread that the tool does not get right yet
//! (an incident scored at first sight) says so in `known_miss`, with why:
//! it stays a case, its report is still blessed and compared, and it is
//! reported as a known miss; once the labels pass, the case fails until
//! `known_miss` is removed (a miss fixed is a change to review too).

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnose::feed_source;
use crate::engine::diagnosis::{Outcome, RootCause, Verdict};
use crate::engine::{Diagnosis, Engine, JudgeOptions};
use crate::report::{Color, EvidenceLines, MarkdownOptions, Terminal, TextOptions};
use crate::rules::RuleSet;

mod explain;
mod labels;

pub use labels::{EarlierLabels, Labels, VitalsLabels};

/// What checking a case found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Labels and blessed report both match.
    Passed,
    /// A no-crash case was reported as a crash.
    FalseCrash,
    /// A crash case was reported as no crash.
    MissedCrash,
    /// The verdict is right but no reported category is accepted.
    WrongCause(Vec<String>),
    /// The cause is right but no evidence line holds a labelled substring.
    WrongEvidence,
    /// A labelled unit has no run, or crashed when it should not have (or
    /// the other way round).
    WrongUnit(String),
    /// Not a crash, as labelled, but the verdict is not the labelled one
    /// (`hung` against `no-crash`).
    WrongVerdict(String),
    /// A run is (or is not) degraded or hung against its label.
    WrongVitals(String),
    /// No earlier launch crashed as the `earlier` labels say.
    WrongEarlier,
    /// Labels pass but the report differs from `expected.json`.
    ReportChanged,
    /// There is no `expected.json` yet (run with `--bless`).
    NotBlessed,
    /// The labels fail as `case.json`'s `known_miss` says they do (how,
    /// in words), and the report is the blessed one.
    KnownMiss(String),
    /// A known miss whose labels pass now: remove `known_miss`.
    MissFixed,
    /// The case could not be run.
    Error(String),
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Passed => f.write_str("passed"),
            Status::FalseCrash => f.write_str("false crash"),
            Status::MissedCrash => f.write_str("missed crash"),
            Status::WrongCause(got) => write!(
                f,
                "wrong cause (got {})",
                if got.is_empty() { "none".to_string() } else { got.join(", ") }
            ),
            Status::WrongEvidence => f.write_str("wrong evidence"),
            Status::WrongUnit(unit) => write!(f, "wrong outcome for unit {unit}"),
            Status::WrongVerdict(got) => write!(f, "wrong verdict (got {got})"),
            Status::WrongVitals(what) => write!(f, "wrong vitals: {what}"),
            Status::WrongEarlier => f.write_str("no earlier launch crashed as labelled"),
            Status::ReportChanged => f.write_str("report changed (review, then --bless)"),
            Status::NotBlessed => f.write_str("not blessed (no expected.json; run with --bless)"),
            Status::KnownMiss(how) => write!(f, "known miss ({how})"),
            Status::MissFixed => f.write_str("a known miss passes now (remove known_miss from case.json)"),
            Status::Error(e) => write!(f, "error: {e}"),
        }
    }
}

impl Status {
    /// Whether the case is as it should be: it passes, or it misses as its
    /// labels say it does.
    pub fn is_ok(&self) -> bool {
        matches!(self, Status::Passed | Status::KnownMiss(_))
    }

    /// A short, stable name for the kind of result (`wrong-cause`), for
    /// machine-read reports such as JUnit's `type` attribute.
    pub fn kind(&self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::FalseCrash => "false-crash",
            Status::MissedCrash => "missed-crash",
            Status::WrongCause(_) => "wrong-cause",
            Status::WrongEvidence => "wrong-evidence",
            Status::WrongUnit(_) => "wrong-unit",
            Status::WrongVerdict(_) => "wrong-verdict",
            Status::WrongVitals(_) => "wrong-vitals",
            Status::WrongEarlier => "wrong-earlier",
            Status::ReportChanged => "report-changed",
            Status::NotBlessed => "not-blessed",
            Status::KnownMiss(_) => "known-miss",
            Status::MissFixed => "miss-fixed",
            Status::Error(_) => "error",
        }
    }
}

/// The result of one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case folder's name.
    pub name: String,
    /// What was found.
    pub status: Status,
    /// For a case that is not as it should be: what the labels expect and
    /// what the tool said, or how the report changed (lines to print under
    /// the status).
    pub explanation: Vec<String>,
}

/// Finds the case folders under `dir` (or `dir` itself if it is a case).
pub fn find_cases(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    if dir.join("case.json").is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut cases: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file() && p.join("input.log").is_file())
        .collect();
    cases.sort();
    Ok(cases)
}

/// Diagnoses a case's `input.log`, named `input.log` in the report so the
/// blessed output does not depend on where the case lives.
pub fn diagnose_case(rules: &RuleSet, case: &Path) -> Result<Diagnosis, String> {
    let path = case.join("input.log");
    let file = fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let reader = crate::input::decode(Box::new(file)).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut engine = Engine::new(rules);
    feed_source(&mut engine, "input.log", reader).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(engine.diagnose(&JudgeOptions::default()))
}

/// The report as blessed: pretty JSON with a final newline.
pub fn report_json(diagnosis: &Diagnosis) -> String {
    let mut text = serde_json::to_string_pretty(diagnosis).unwrap_or_default();
    text.push('\n');
    text
}

/// What checking a case does with a report whose labels pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Compare it with `expected.json`.
    Check,
    /// Write it to `expected.json` (a report that gets the labels wrong is
    /// never blessed).
    Bless,
}

/// Checks one case: its labels, then its report as `mode` says.
pub fn check_case(rules: &RuleSet, case: &Path, mode: Mode) -> CaseResult {
    let name =
        case.file_name().map_or_else(|| case.display().to_string(), |n| n.to_string_lossy().into_owned());
    let (status, explanation) = match run_checks(rules, case, mode) {
        Ok(found) => found,
        Err(e) => (Status::Error(e), Vec::new()),
    };
    CaseResult { name, status, explanation }
}

fn run_checks(rules: &RuleSet, case: &Path, mode: Mode) -> Result<(Status, Vec<String>), String> {
    let labels_text = fs::read_to_string(case.join("case.json")).map_err(|e| format!("case.json: {e}"))?;
    let labels = labels::parse(&labels_text)?;
    let diagnosis = diagnose_case(rules, case)?;
    let status = check_labels(&labels, &diagnosis);
    let settled = match (&labels.known_miss, status) {
        (None, Status::Passed) => Status::Passed,
        (None, failed) => return Ok((failed, explain::labels_against_report(&labels, &diagnosis))),
        (Some(_), Status::Passed) => return Ok((Status::MissFixed, Vec::new())),
        (Some(_), missed) => Status::KnownMiss(missed.to_string()),
    };
    let name = case.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let goldens = goldens(&name, &diagnosis);
    if mode == Mode::Bless {
        for (file, report) in &goldens {
            let path = case.join(file);
            refuse_to_write_elsewhere(case, &path)?;
            fs::write(&path, report).map_err(|e| format!("{file}: {e}"))?;
        }
        return Ok((settled, Vec::new()));
    }
    for (file, report) in &goldens {
        let same = |blessed: &str| match *file {
            JSON_GOLDEN => same_json(blessed, report),
            _ => blessed == report,
        };
        match fs::read_to_string(case.join(file)) {
            Ok(blessed) if same(&blessed) => {}
            Ok(blessed) => return Ok((Status::ReportChanged, explain::report_diff(file, &blessed, report))),
            // The JSON is the report every case has; the text and Markdown
            // are compared once blessed (a corpus from an older version has
            // none yet).
            Err(_) if *file == JSON_GOLDEN => return Ok((Status::NotBlessed, Vec::new())),
            Err(_) => {}
        }
    }
    Ok((settled, Vec::new()))
}

/// The blessed report every case has.
const JSON_GOLDEN: &str = "expected.json";

/// The report as blessed, in each form a case keeps: the JSON scripts
/// read, the text a person reads on an 80-column terminal, and for the
/// founding incidents (`seed-*`) the Markdown pasted into an issue.
fn goldens(case_name: &str, diagnosis: &Diagnosis) -> Vec<(&'static str, String)> {
    let mut goldens = vec![(JSON_GOLDEN, report_json(diagnosis)), ("expected.txt", report_text(diagnosis))];
    if case_name.starts_with("seed-") {
        goldens.push(("expected.md", report_markdown(diagnosis)));
    }
    goldens
}

/// The text report as an 80-column terminal shows it, without colour.
fn report_text(diagnosis: &Diagnosis) -> String {
    let terminal = Terminal { width: Some(80), color: Color::Off, evidence: EvidenceLines::CutToWidth };
    crate::report::render_text(diagnosis, &TextOptions { verbose: false, terminal })
}

/// The Markdown report.
fn report_markdown(diagnosis: &Diagnosis) -> String {
    crate::report::render_markdown(diagnosis, &MarkdownOptions { verbose: false })
}

/// Blessing writes only inside the corpus: not through an `expected.json`
/// that is a symbolic link, nor into a case folder that is a link to a
/// place outside the folder that lists it.
fn refuse_to_write_elsewhere(case: &Path, expected: &Path) -> Result<(), String> {
    let is_link = |path: &Path| fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link(expected) {
        return Err(
            "expected.json is a symbolic link: not blessed (it would write where the link points)".into()
        );
    }
    if is_link(case) {
        let inside = match (case.parent().map(fs::canonicalize), fs::canonicalize(case)) {
            (Some(Ok(corpus)), Ok(target)) => target.starts_with(&corpus),
            _ => false,
        };
        if !inside {
            return Err("the case folder is a symbolic link out of the corpus: not blessed".into());
        }
    }
    Ok(())
}

fn same_json(a: &str, b: &str) -> bool {
    match (serde_json::from_str::<serde_json::Value>(a), serde_json::from_str::<serde_json::Value>(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Compares a diagnosis with a case's labels, as the project's corpus scorer
/// does.
pub fn check_labels(labels: &Labels, diagnosis: &Diagnosis) -> Status {
    for (unit, want) in &labels.units {
        let runs: Vec<_> = diagnosis.runs.iter().filter(|r| r.unit.as_deref() == Some(unit)).collect();
        let crashed = runs.iter().any(|r| r.outcome == Outcome::Crash);
        if runs.is_empty() || crashed != (want == "crash") {
            return Status::WrongUnit(unit.clone());
        }
    }
    if let Some(vitals) = &labels.vitals {
        if let Some(wrong) = check_vitals(vitals, diagnosis) {
            return Status::WrongVitals(wrong);
        }
    }
    if let Some(earlier) = &labels.earlier {
        let found = diagnosis.runs.iter().filter(|r| r.outcome == Outcome::Crash).any(|r| {
            r.root_cause.as_ref().is_some_and(|c| {
                earlier.accept.iter().any(|a| a.as_str() == c.category.name())
                    && c.evidence
                        .iter()
                        .any(|e| earlier.evidence.iter().any(|want| e.text.contains(want.as_str())))
            })
        });
        if !found {
            return Status::WrongEarlier;
        }
    }
    check_verdict_and_cause(labels, diagnosis)
}

/// What is wrong with the runs' collapses and hangs, if anything.
fn check_vitals(labels: &VitalsLabels, diagnosis: &Diagnosis) -> Option<String> {
    let listed = labels.degraded.iter().chain(&labels.not_degraded).chain(&labels.hung);
    for &number in listed {
        let run = diagnosis.runs.get(number.checked_sub(1)?);
        let degraded = run.is_some_and(|r| r.degraded.is_some());
        let hung = run.is_some_and(|r| r.outcome == Outcome::Hung);
        let want_degraded = labels.degraded.contains(&number);
        if (labels.degraded.contains(&number) || labels.not_degraded.contains(&number))
            && degraded != want_degraded
        {
            return Some(format!("run {number} degraded: {degraded}, want {want_degraded}"));
        }
        if hung != labels.hung.contains(&number) {
            return Some(format!("run {number} hung: {hung}, want {}", !hung));
        }
    }
    None
}

/// Every root cause the report gives: the diagnosis's, and each crashed
/// run's.
fn reported_causes(diagnosis: &Diagnosis) -> Vec<&RootCause> {
    let runs = diagnosis.runs.iter().filter(|r| r.outcome == Outcome::Crash);
    diagnosis.root_cause.iter().chain(runs.filter_map(|r| r.root_cause.as_ref())).collect()
}

/// The categories a case accepts: `accept`, or its `root_cause` alone.
fn accepted(labels: &Labels) -> Vec<&str> {
    let listed = if labels.accept.is_empty() { labels.root_cause.as_slice() } else { &labels.accept };
    listed.iter().map(String::as_str).collect()
}

/// A verdict in the words of `case.json`.
fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Crash => "crash",
        Verdict::Hung => "hung",
        Verdict::Degraded => "degraded",
        Verdict::NoCrash => "no-crash",
    }
}

fn check_verdict_and_cause(labels: &Labels, diagnosis: &Diagnosis) -> Status {
    let got = verdict_word(diagnosis.verdict);
    match (labels.verdict.as_str(), got) {
        (want, "crash") if want != "crash" => return Status::FalseCrash,
        (want, got) if want != "crash" && want != got => return Status::WrongVerdict(got.to_string()),
        (want, _) if want != "crash" => return Status::Passed,
        (_, got) if got != "crash" => return Status::MissedCrash,
        _ => {}
    }
    if labels.scorable.as_deref() == Some("verdict-only") {
        return Status::Passed;
    }
    let causes = reported_causes(diagnosis);
    let accept = accepted(labels);
    if !causes.iter().any(|c| accept.contains(&c.category.name())) {
        let mut got: Vec<String> = causes.iter().map(|c| c.category.to_string()).collect();
        got.dedup();
        return Status::WrongCause(got);
    }
    let evidence_found = causes
        .iter()
        .flat_map(|c| &c.evidence)
        .any(|e| labels.evidence.iter().any(|want| e.text.contains(want.as_str())));
    if !evidence_found {
        return Status::WrongEvidence;
    }
    Status::Passed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_labels_are_checked() {
        let rules = RuleSet::builtin().unwrap();
        let mut engine = Engine::new(&rules);
        let log = "\
Nov 30 10:00:05 h systemd[1]: Started sglang.service - SGLang server.
Nov 30 10:00:07 h python3[1104]: [2026-11-30 10:00:40] The server is fired up and ready to roll!
Nov 30 10:00:10 h systemd[1]: trainer.service: Main process exited, code=killed, status=9/KILL
";
        feed_source(&mut engine, "input.log", log.as_bytes()).unwrap();
        let diagnosis = engine.diagnose(&JudgeOptions::default());
        let labels = |units: &[(&str, &str)]| Labels {
            verdict: "crash".into(),
            root_cause: None,
            accept: vec!["sigkill-unattributed".into()],
            evidence: vec!["status=9/KILL".into()],
            scorable: None,
            units: units.iter().map(|(u, s)| (u.to_string(), s.to_string())).collect(),
            vitals: None,
            earlier: None,
            known_miss: None,
        };
        let right = labels(&[("trainer.service", "crash"), ("sglang.service", "healthy")]);
        assert_eq!(check_labels(&right, &diagnosis), Status::Passed);
        let wrong = labels(&[("sglang.service", "crash")]);
        assert_eq!(check_labels(&wrong, &diagnosis), Status::WrongUnit("sglang.service".into()));
        let missing = labels(&[("cron.service", "healthy")]);
        assert_eq!(check_labels(&missing, &diagnosis), Status::WrongUnit("cron.service".into()));
    }
}
