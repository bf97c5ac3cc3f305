//! The same incident gives the same diagnosis whatever wraps it: every
//! fixture, transformed as a user's tooling would (a byte-order mark, a
//! blank line or journalctl's `Hint:` in front, another log before a
//! journal dump, UTF-16 or UTF-32 instead of UTF-8; a program's output
//! under Docker's, kubectl's and compose's prefixes, in Docker's json-file
//! records, or in a real journal that journalctl renders in its modes,
//! oldest or newest first), keeps its verdict, its root cause's category
//! and its decisive line (moved by the lines put in front, or to where
//! the wrapper put it).

use logdiag::corpus::find_cases;
use logdiag::diagnose::feed_source;
use logdiag::engine::{Diagnosis, Engine, JudgeOptions};
use logdiag::framing::journal::layout;
use logdiag::rules::RuleSet;

use crate::util::{root, widened, WIDE_ENCODINGS};
use crate::wrappers::{self, Journal, PREFIXES};

fn rules() -> &'static RuleSet {
    static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules"))
}

fn diagnose(bytes: &[u8]) -> Diagnosis {
    let mut engine = Engine::new(rules());
    let _ = feed_source(&mut engine, "input.log", bytes);
    engine.diagnose(&JudgeOptions::default())
}

/// What must not change: verdict, category, decisive line.
fn outcome(diagnosis: &Diagnosis) -> (String, Option<String>, Option<u64>) {
    let cause = diagnosis.root_cause.as_ref();
    (
        format!("{:?}", diagnosis.verdict),
        cause.map(|c| c.category.to_string()),
        cause.and_then(|c| c.evidence.first()).map(|e| e.line),
    )
}

/// Which fixtures a transform applies to.
#[derive(Clone, Copy, PartialEq)]
enum Fixtures {
    All,
    /// The structured journal dumps (export, verbose, JSON pretty).
    Dumps,
}

/// Every fixture of `which` with `front` before it: the ones that changed.
fn changed_by(front: &[u8], shift: u64, which: Fixtures) -> Vec<String> {
    let cases = find_cases(&root().join("fixtures")).unwrap();
    assert!(cases.len() > 100, "only {} fixtures", cases.len());
    let mut changed = Vec::new();
    let mut dumps = 0;
    for case in &cases {
        let text = std::fs::read(case.join("input.log")).unwrap();
        let dump = layout::sniff(&text).is_some();
        dumps += usize::from(dump);
        if which == Fixtures::Dumps && !dump {
            continue;
        }
        let mut fronted = front.to_vec();
        fronted.extend_from_slice(&text);
        let plain = outcome(&diagnose(&text));
        let (verdict, category, line) = outcome(&diagnose(&fronted));
        let moved_back = (verdict, category, line.map(|l| l - shift));
        if plain != moved_back {
            changed.push(format!("{}: {plain:?} -> {moved_back:?}", case.display()));
        }
    }
    assert!(dumps >= 1, "the fixtures hold {dumps} journal dumps");
    changed
}

fn assert_unchanged(changed: Vec<String>) {
    assert!(changed.is_empty(), "{} fixtures changed:\n{}", changed.len(), changed.join("\n"));
}

#[test]
fn a_byte_order_mark_changes_no_diagnosis() {
    assert_unchanged(changed_by(b"\xef\xbb\xbf", 0, Fixtures::All));
}

#[test]
fn a_blank_first_line_changes_no_diagnosis() {
    assert_unchanged(changed_by(b"\n", 1, Fixtures::All));
}

/// What journalctl writes to the terminal, before its output, for a user
/// outside the journal's groups (captured with `2>&1`).
const HINT: &[u8] = b"Hint: You are currently not seeing messages from other users and the system.
      Users in groups 'adm', 'systemd-journal' can see all messages.
      Pass -q to turn off this notice.
";

#[test]
fn journalctls_hint_in_front_changes_no_diagnosis() {
    assert_unchanged(changed_by(HINT, 3, Fixtures::All));
}

#[test]
fn a_journal_dump_after_another_log_keeps_its_diagnosis() {
    // A healthy launch's start, as `cat other.log dump > all.log` joins them.
    let other = b"[2026-05-25 08:00:01] server_args=ServerArgs(model_path='m', tp_size=1)
[2026-05-25 08:00:09] Load weight begin. avail mem=78.50 GB
[2026-05-25 08:00:31] Load weight end. type=LlamaForCausalLM, avail mem=62.10 GB
";
    assert_unchanged(changed_by(other, 3, Fixtures::Dumps));
}

#[test]
fn utf16_or_utf32_changes_no_diagnosis() {
    let cases = find_cases(&root().join("fixtures")).unwrap();
    let mut changed = Vec::new();
    // Each fixture in one of the four encodings, with or without a mark.
    for (n, case) in cases.iter().enumerate() {
        let text = std::fs::read(case.join("input.log")).unwrap();
        let wide = widened(&String::from_utf8_lossy(&text), WIDE_ENCODINGS[n % 4], n % 8 < 4);
        let decoded = logdiag::input::decode(Box::new(std::io::Cursor::new(wide))).unwrap();
        let mut engine = Engine::new(rules());
        let _ = feed_source(&mut engine, "input.log", decoded);
        let plain = outcome(&diagnose(&text));
        let read = outcome(&engine.diagnose(&JudgeOptions::default()));
        if plain != read {
            changed.push(format!("{} (encoding {}): {plain:?} -> {read:?}", case.display(), n % 8));
        }
    }
    assert_unchanged(changed);
}

/// A fixture that is a program's own output, and its diagnosis.
struct Program {
    case: String,
    text: String,
    plain: Outcome,
}

/// Verdict, category, and the evidence lines' numbers and texts (the
/// decisive line first).
type Outcome = (String, Option<String>, Vec<(u64, String)>);

fn placed_outcome(diagnosis: &Diagnosis) -> Outcome {
    let cause = diagnosis.root_cause.as_ref();
    (
        format!("{:?}", diagnosis.verdict),
        cause.map(|c| c.category.to_string()),
        cause.map_or(Vec::new(), |c| c.evidence.iter().map(|e| (e.line, e.text.clone())).collect()),
    )
}

/// The fixtures that are a program's own output (no journal, container
/// or kubectl layer of their own), diagnosed as they are.
fn programs() -> &'static [Program] {
    static PROGRAMS: std::sync::OnceLock<Vec<Program>> = std::sync::OnceLock::new();
    PROGRAMS.get_or_init(|| {
        let cases = find_cases(&root().join("fixtures")).unwrap();
        let mut programs = Vec::new();
        for case in &cases {
            let bytes = std::fs::read(case.join("input.log")).unwrap();
            let diagnosis = diagnose(&bytes);
            let formats: Vec<String> = diagnosis.inputs.iter().flat_map(|i| i.formats.clone()).collect();
            if !wrappers::is_program_output(&formats) || layout::sniff(&bytes).is_some() {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes).into_owned();
            programs.push(Program {
                case: case.display().to_string(),
                text,
                plain: placed_outcome(&diagnosis),
            });
        }
        assert!(programs.len() > 500, "only {} fixtures are a program's own output", programs.len());
        programs
    })
}

/// Where a wrapper puts line `n` of the program's output.
#[derive(Clone, Copy)]
enum Placement {
    /// At line `n`.
    Same,
    /// Newest first: the last line first.
    Reversed,
    /// Over the lines of its entry, as the map beside the text says.
    Spread,
}

/// Whether program `n` is tried under transform `t` of `of`: `share` of
/// `of` programs are, a different share for each transform, so that every
/// program meets some and the suite stays fast (`LOGDIAG_METAMORPHIC_ALL=1`
/// tries every program under every transform).
fn tried(n: usize, t: usize, share: usize, of: usize) -> bool {
    std::env::var_os("LOGDIAG_METAMORPHIC_ALL").is_some() || (n + t) % of < share
}

/// The programs whose diagnosis changed when each of those `tried` was
/// wrapped as `wrapped` (the program's index and lines) gives.
fn changed_when_wrapped(
    placement: Placement,
    tried: impl Fn(usize) -> bool,
    wrapped: impl Fn(usize, &[&str]) -> (String, Vec<u64>),
) -> Vec<String> {
    let mut changed = Vec::new();
    for (n, program) in programs().iter().enumerate().filter(|(n, _)| tried(*n)) {
        let lines: Vec<&str> = wrappers::program_lines(&program.text);
        // Two lines whose stamps tie do not tell which came first.
        if matches!(placement, Placement::Reversed) && lines.len() < 3 {
            continue;
        }
        let (text, program_line_of) = wrapped(n, &lines);
        let (verdict, category, evidence) = placed_outcome(&diagnose(text.as_bytes()));
        let (plain_verdict, plain_category, plain_evidence) = &program.plain;
        // The decisive line is still shown as evidence (a transport's pid
        // may tell writers apart differently, and with them which of two
        // lines that tell the same leads).
        let shown = |&(line, _): &(u64, String)| {
            let program_line = |wrapped: u64| match placement {
                Placement::Same => wrapped,
                Placement::Reversed => (lines.len() as u64 + 1).saturating_sub(wrapped),
                Placement::Spread => program_line_of.get(wrapped as usize - 1).copied().unwrap_or(0),
            };
            evidence.iter().any(|(wrapped, _)| program_line(*wrapped) == line)
        };
        let same_line =
            plain_evidence.first().is_none_or(shown) && evidence.is_empty() == plain_evidence.is_empty();
        if &verdict != plain_verdict || &category != plain_category || !same_line {
            let first = |e: &[(u64, String)]| e.first().cloned();
            changed.push(format!(
                "{}: {:?} -> {:?}",
                program.case,
                (plain_verdict, plain_category, first(plain_evidence)),
                (verdict, category, first(&evidence))
            ));
        }
    }
    changed
}

#[test]
fn container_and_kubectl_prefixes_change_no_diagnosis() {
    let mut changed = Vec::new();
    for (t, prefix) in PREFIXES.into_iter().enumerate() {
        let tried = |n| tried(n, t, 2, PREFIXES.len());
        let found = changed_when_wrapped(Placement::Same, tried, |_, lines| {
            (wrappers::wrap(lines, prefix), Vec::new())
        });
        changed.extend(found.into_iter().map(|c| format!("{prefix:?}: {c}")));
    }
    assert_unchanged(changed);
}

/// The journal modes that print an entry's lines one each: oldest first,
/// and (the last three) newest first with `-r`.
const JOURNAL_MODES: [(&str, Placement); 10] = [
    ("short", Placement::Same),
    ("short-precise", Placement::Same),
    ("short-iso", Placement::Same),
    ("short-monotonic", Placement::Same),
    ("short-unix", Placement::Same),
    ("with-unit", Placement::Same),
    ("json", Placement::Same),
    ("short", Placement::Reversed),
    ("short-precise", Placement::Reversed),
    ("json", Placement::Reversed),
];

#[test]
fn a_real_journal_in_every_mode_changes_no_diagnosis() {
    if crate::journal::tools().is_none() {
        return;
    }
    let logs: Vec<Vec<&str>> = programs().iter().map(|p| wrappers::program_lines(&p.text)).collect();
    let journal = Journal::of(&logs);
    let mut changed = Vec::new();
    for (t, (mode, placement)) in JOURNAL_MODES.into_iter().enumerate() {
        // `--all`: journalctl shows a line with a control character (a
        // colour code) as `[N blob data]` otherwise.
        let mut args = vec!["-o", mode, "--all"];
        if matches!(placement, Placement::Reversed) {
            args.push("-r");
        }
        let parts = journal.rendered(&args);
        let tried = |n| tried(n, t, 3, JOURNAL_MODES.len());
        let found = changed_when_wrapped(placement, tried, |n, _| (parts[n].clone(), Vec::new()));
        changed.extend(found.into_iter().map(|c| format!("{}: {c}", args.join(" "))));
    }
    assert_unchanged(changed);
}

/// The journal modes that spread an entry over lines of its fields,
/// oldest and newest first: a line of the program is a dozen lines of
/// the file, and the judge's nearness (an error a few lines after a
/// death tells its reason) counts the program's lines, so nothing
/// changes.
const SPREAD_MODES: [(&str, bool); 6] = [
    ("export", false),
    ("verbose", false),
    ("json-pretty", false),
    ("export", true),
    ("verbose", true),
    ("json-pretty", true),
];

#[test]
fn a_real_journal_spread_over_fields_changes_no_diagnosis() {
    if crate::journal::tools().is_none() {
        return;
    }
    let logs: Vec<Vec<&str>> = programs().iter().map(|p| wrappers::program_lines(&p.text)).collect();
    let journal = Journal::of(&logs);
    let mut changed = Vec::new();
    for (t, (mode, newest_first)) in SPREAD_MODES.into_iter().enumerate() {
        let mut args = vec!["-o", mode, "--all"];
        if newest_first {
            args.push("-r");
        }
        let parts = journal.rendered_spread(&args);
        let tried = |n| tried(n, t, 1, SPREAD_MODES.len());
        let found = changed_when_wrapped(Placement::Spread, tried, |n, _| parts[n].clone());
        changed.extend(found.into_iter().map(|c| format!("{}: {c}", args.join(" "))));
    }
    assert_unchanged(changed);
}

/// asyncio's `Task exception was never retrieved` and TGI's error record
/// announce the traceback under them, which the server survived: in every
/// journal mode, the entries spread over lines of fields or not, oldest or
/// newest first, the traceback stays theirs.
#[test]
fn an_announced_traceback_stays_announced_in_every_journal_mode() {
    if crate::journal::tools().is_none() {
        return;
    }
    for case in ["sglang-17031", "tgi-1695"] {
        let text = std::fs::read_to_string(root().join("fixtures").join(case).join("input.log")).unwrap();
        let journal = Journal::of(&[wrappers::program_lines(&text)]);
        for mode in ["short", "short-precise", "json", "export", "verbose", "json-pretty"] {
            for newest_first in [false, true] {
                let mut args = vec!["-o", mode, "--all"];
                if newest_first {
                    args.push("-r");
                }
                let rendered = journal.rendered_whole(&args);
                let (verdict, category, evidence) = placed_outcome(&diagnose(rendered.as_bytes()));
                assert_eq!(
                    (verdict.as_str(), category, evidence),
                    ("NoCrash", None, Vec::new()),
                    "{case} {args:?}"
                );
            }
        }
    }
}
