//! The same incident gives the same diagnosis whatever wraps it: every
//! fixture, transformed as a user's tooling would (a byte-order mark, a
//! blank line or journalctl's `Hint:` in front, another log before a
//! journal dump, UTF-16 or UTF-32 instead of UTF-8), keeps its verdict, its
//! root cause's category and its decisive line (moved by the lines put in
//! front).

use logdiag::corpus::find_cases;
use logdiag::diagnose::feed_source;
use logdiag::engine::{Diagnosis, Engine, JudgeOptions};
use logdiag::framing::journal::layout;
use logdiag::rules::RuleSet;

use crate::util::{root, widened, WIDE_ENCODINGS};

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
