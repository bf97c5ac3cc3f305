//! Loading rule files: built-in and user rules through one path.
//!
//! Every problem is collected, not just the first: a broken rule directory
//! reports all its errors at once, each with `file:line:col`, what is wrong
//! and how to put it right.

use std::ops::Range;
use std::path::{Path, PathBuf};

use regex::Regex;
use toml::Spanned;

pub use super::error::RuleError;
use super::error::{file_error, Positions};
use super::match_spec::compile_matcher;
use super::schema::{self, KeyFault, RuleFile};
use super::Category;
use super::{check, MarkerKind, Role, Rule, RuleSet, Stage};

mod builtin {
    use super::super::regex_facts::StoredFacts;
    include!(concat!(env!("OUT_DIR"), "/builtin_rules.rs"));
    include!(concat!(env!("OUT_DIR"), "/builtin_regex_facts.rs"));
}
pub(super) use builtin::BUILTIN_REGEX_FACTS;

/// Which rules to load.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Include the built-in rules.
    pub builtin: bool,
    /// Directories of user rule files (walked for `*.toml`).
    pub dirs: Vec<PathBuf>,
    /// Also check the built-in rules' samples. User rules' samples are
    /// always checked; the built-in ones are checked by `cargo test` and
    /// `logdiag rules check`, and skipped otherwise to keep start-up fast.
    pub check_builtin_samples: bool,
}

/// A rule file's text and where it came from.
struct RuleText {
    /// Shown in errors: `rules/flashinfer/arch-check.toml` or the user path.
    name: String,
    /// Check this file's samples when loading.
    check_samples: bool,
    /// Id derived from the path: `flashinfer.arch-check`.
    default_id: String,
    text: String,
}

/// Loads the requested rules; all problems are returned together.
pub fn load(options: &LoadOptions) -> Result<RuleSet, Vec<RuleError>> {
    let mut texts = Vec::new();
    let mut errors = Vec::new();
    if options.builtin {
        for (rel, text) in builtin::BUILTIN_RULES {
            texts.push(RuleText {
                name: format!("rules/{rel}"),
                check_samples: options.check_builtin_samples,
                default_id: id_from_path(rel),
                text: text.to_string(),
            });
        }
    }
    for dir in &options.dirs {
        read_dir(dir, &mut texts, &mut errors);
    }
    let mut set = compile_all(texts, errors)?;
    if options.builtin {
        set.learn_builtin_wording();
    }
    Ok(set)
}

/// Loads rules from in-memory files `(path, text)` (tests, `rules check`).
pub fn load_texts(files: &[(&str, &str)]) -> Result<RuleSet, Vec<RuleError>> {
    let texts = files
        .iter()
        .map(|(path, text)| RuleText {
            name: path.to_string(),
            check_samples: true,
            default_id: id_from_path(path),
            text: text.to_string(),
        })
        .collect();
    compile_all(texts, Vec::new())
}

fn read_dir(dir: &Path, texts: &mut Vec<RuleText>, errors: &mut Vec<RuleError>) {
    let shown = dir.display().to_string();
    if !dir.is_dir() {
        errors.push(file_error(
            &shown,
            "not a directory of rule files",
            Some("pass a directory holding <area>/<id>.toml files"),
        ));
        return;
    }
    let walker = walkdir::WalkDir::new(dir).follow_links(true).sort_by_file_name();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                errors.push(file_error(&shown, &e.to_string(), None));
                continue;
            }
        };
        let path = entry.path();
        if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let name = path.display().to_string();
        let rel = path.strip_prefix(dir).unwrap_or(path).to_string_lossy().replace('\\', "/");
        match read_rule_file(path) {
            Ok(text) => {
                texts.push(RuleText { name, check_samples: true, default_id: id_from_path(&rel), text })
            }
            Err(e) => errors.push(file_error(&name, &e, None)),
        }
    }
}

/// Largest rule file read: the catalogue's largest is a few KiB; a file of
/// hundreds of megabytes is not a rule, and reading it whole would cost
/// several times its size in memory.
const MAX_RULE_FILE_BYTES: u64 = 1 << 20;

/// A rule file's text, unless it is too large to be one.
fn read_rule_file(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut text = String::new();
    file.take(MAX_RULE_FILE_BYTES + 1).read_to_string(&mut text).map_err(|e| format!("cannot read: {e}"))?;
    if text.len() as u64 > MAX_RULE_FILE_BYTES {
        return Err(format!("too large for a rule file (over {} KiB)", MAX_RULE_FILE_BYTES >> 10));
    }
    Ok(text)
}

/// `flashinfer/arch-check.toml` → `flashinfer.arch-check`.
fn id_from_path(rel: &str) -> String {
    rel.trim_end_matches(".toml").replace('/', ".")
}

/// A rule compiled except for references to other rules.
struct Draft {
    rule: Rule,
    /// Where the id is written, or the start of the file for a derived id.
    id_span: Range<usize>,
    explains: Vec<Spanned<String>>,
    confirms: Vec<Spanned<String>>,
    samples: Vec<Spanned<String>>,
    counter_samples: Vec<Spanned<String>>,
    text_index: usize,
}

fn compile_all(texts: Vec<RuleText>, mut errors: Vec<RuleError>) -> Result<RuleSet, Vec<RuleError>> {
    let mut drafts = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let mut at = Positions { file: &text.name, text: &text.text, errors: &mut errors };
        if let Some(draft) = compile_file(text, i, &mut at) {
            drafts.push(draft);
        }
    }
    drafts.sort_by(|a, b| a.rule.id.cmp(&b.rule.id));
    for pair in drafts.windows(2) {
        if pair[0].rule.id == pair[1].rule.id {
            let text = &texts[pair[1].text_index];
            let mut at = Positions { file: &text.name, text: &text.text, errors: &mut errors };
            at.error(
                pair[1].id_span.clone(),
                &format!("duplicate rule id '{}' (also in {})", pair[1].rule.id, pair[0].rule.file),
                "give one of the rules another id (`id = \"area.name\"`), or remove the copy",
            );
        }
    }
    let ids: Vec<String> = drafts.iter().map(|d| d.rule.id.clone()).collect();
    for draft in &mut drafts {
        let text = &texts[draft.text_index];
        let mut at = Positions { file: &text.name, text: &text.text, errors: &mut errors };
        let own = draft.rule.id.as_str();
        draft.rule.explains = resolve(&draft.explains, own, &ids, Refs::Explains, &mut at);
        draft.rule.confirms = resolve(&draft.confirms, own, &ids, Refs::Confirms, &mut at);
    }
    let rules: Vec<Rule> = drafts.iter().map(|d| d.rule.clone()).collect();
    let set = RuleSet::new(rules);
    for (index, draft) in drafts.iter().enumerate() {
        let text = &texts[draft.text_index];
        if !text.check_samples {
            continue;
        }
        let mut at = Positions { file: &text.name, text: &text.text, errors: &mut errors };
        for sample in &draft.samples {
            if !check::matches(&set, index, sample.get_ref()) {
                let why = check::why_not(&set, index, sample.get_ref());
                at.error(
                    sample.span(),
                    "sample does not match this rule",
                    &format!("{why}; change the rule's [match] conditions, or fix the sample (it is framed and grouped like real input)"),
                );
            }
        }
        for sample in &draft.counter_samples {
            if check::matches(&set, index, sample.get_ref()) {
                at.error(sample.span(), "counter-sample matches this rule", "tighten [match] (a `not` regex, an exception type or a frame) so this line is not matched");
            }
        }
    }
    if errors.is_empty() {
        Ok(set)
    } else {
        Err(errors)
    }
}

/// Compiles one rule file, checking each of its sections in turn; `None`
/// when it has a problem (every problem is reported).
fn compile_file(text: &RuleText, text_index: usize, at: &mut Positions<'_>) -> Option<Draft> {
    let file = parse_file(&text.text, at)?;
    let before = at.errors.len();
    let id = file.id.as_ref().map_or_else(|| text.default_id.clone(), |i| i.get_ref().clone());
    let (role, role_known) = check_role(&file, at);
    let category = check_category(&file, role, at);
    check_required_fields(&file, role, role_known, at);
    let marker = check_marker(&file, role, role_known, at);
    let stage = check_stage(&file, at);
    check_confirms(&file, role, at);
    let validate = text.check_samples;
    let matcher = compile_matcher(&file.matcher, validate, at);
    if let Some(matcher) = matcher.as_ref().filter(|_| validate) {
        check_placeholders(&file, matcher.message.get(), role, at);
    }
    check_test(&file, at);
    if at.errors.len() > before {
        return None;
    }
    let rule = Rule {
        id,
        file: text.name.clone(),
        role,
        category,
        title: file.title.get_ref().clone(),
        hint: file.hint.as_ref().map(|h| h.get_ref().clone()),
        why: file.why.clone(),
        priority: file.priority,
        terminal: file.terminal,
        counts_after_stop: file.counts_after_stop,
        announces: file.announces,
        summary: file.summary,
        explains: Vec::new(),
        confirms: Vec::new(),
        marker,
        stage,
        phase: file.phase.clone(),
        matcher: matcher?,
        samples: file.test.samples.iter().map(|s| s.get_ref().clone()).collect(),
        counter_samples: file.test.counter_samples.iter().map(|s| s.get_ref().clone()).collect(),
    };
    Some(Draft {
        rule,
        id_span: file.id.as_ref().map_or(0..0, |i| i.span()),
        explains: file.explains,
        confirms: file.confirms,
        samples: file.test.samples,
        counter_samples: file.test.counter_samples,
        text_index,
    })
}

/// The file as a [`RuleFile`], or `None` when it is not valid TOML or not
/// a rule (reported: each unknown or missing key, else TOML's message).
fn parse_file(text: &str, at: &mut Positions<'_>) -> Option<RuleFile> {
    let e = match toml::from_str(text) {
        Ok(file) => return Some(file),
        Err(e) => e,
    };
    let span = e.span().unwrap_or(0..0);
    let help = if e.message().contains("unknown field") {
        "see rules/README.md for the fields a rule may have"
    } else if e.message().contains("missing field") {
        "add the field; rules/README.md lists the required ones"
    } else {
        "check the TOML syntax around this position"
    };
    if report_key_faults(text, at) {
        return None;
    }
    // toml's message may span lines ("invalid array\nexpected `]`").
    let message = e.message().trim().replace('\n', "; ");
    at.error(span, &message, help);
    None
}

/// The rule's role, and whether it is a known one: with an unknown role
/// (reported, and read as a marker) the checks that depend on the role
/// are skipped.
fn check_role(file: &RuleFile, at: &mut Positions<'_>) -> (Role, bool) {
    let role = file.role.get_ref().parse::<Role>().ok();
    if role.is_none() {
        at.error(
            file.role.span(),
            &format!("unknown role '{}'", file.role.get_ref()),
            "use one of: cause, symptom, confirm, benign, marker, fate",
        );
    }
    (role.unwrap_or(Role::Marker), role.is_some())
}

/// Reports that a rule of a known `role` lacks `field`.
fn report_needed(file: &RuleFile, role: Role, field: &str, at: &mut Positions<'_>) {
    at.error(
        file.role.span(),
        &format!("a {} rule needs `{field}`", role.name()),
        &format!("add `{field} = \"…\"`"),
    );
}

/// The fields a role requires: a hint for causes and confirms, a why for
/// symptoms and benign lines, the confirmed ids for confirms.
fn check_required_fields(file: &RuleFile, role: Role, role_known: bool, at: &mut Positions<'_>) {
    let needed = [
        (matches!(role, Role::Cause | Role::Confirm) && file.hint.is_none(), "hint"),
        (matches!(role, Role::Symptom | Role::Benign) && file.why.is_none(), "why"),
        (role == Role::Confirm && file.confirms.is_empty(), "confirms"),
    ];
    for (missing, field) in needed {
        if missing && role_known {
            report_needed(file, role, field, at);
        }
    }
}

/// The marker kind: required of marker rules, refused on the others.
fn check_marker(file: &RuleFile, role: Role, role_known: bool, at: &mut Positions<'_>) -> Option<MarkerKind> {
    match (&file.marker, role) {
        (Some(m), Role::Marker) => {
            let kind = m.get_ref().parse::<MarkerKind>().ok();
            if kind.is_none() {
                at.error(
                    m.span(),
                    &format!("unknown marker kind '{}'", m.get_ref()),
                    "use one of: start, ready, progress, stop, exit",
                );
            }
            kind
        }
        (None, Role::Marker) => {
            if role_known {
                report_needed(file, role, "marker", at);
            }
            None
        }
        (Some(m), _) => {
            at.error(m.span(), "`marker` is only for marker rules", "remove it, or set role = \"marker\"");
            None
        }
        (None, _) => None,
    }
}

/// The launch stage of a start marker (the program's launch when unset).
fn check_stage(file: &RuleFile, at: &mut Positions<'_>) -> Stage {
    match file.stage.as_ref().map(|n| (n, Stage::from_number(*n.get_ref()))) {
        None => Stage::Launch,
        Some((_, Some(stage))) => stage,
        Some((n, None)) => {
            at.error(
                n.span(),
                &format!("unknown stage {}", n.get_ref()),
                "use 0 (unit starting), 1 (unit started) or 2 (program launch)",
            );
            Stage::Launch
        }
    }
}

/// `confirms` belongs to confirm rules only.
fn check_confirms(file: &RuleFile, role: Role, at: &mut Positions<'_>) {
    if !file.confirms.is_empty() && role != Role::Confirm {
        at.error(
            file.confirms[0].span(),
            "`confirms` is only for confirm rules",
            "remove it, or set role = \"confirm\"",
        );
    }
}

/// The `[test]` section gives at least one sample.
fn check_test(file: &RuleFile, at: &mut Positions<'_>) {
    if file.test.samples.is_empty() {
        at.error(
            file.title.span(),
            "the rule has no samples",
            "add [test] samples = ['a real log line this rule must match']",
        );
    }
}

/// Names every unknown and missing key of a file that is valid TOML but
/// not a rule, each where it is written; false if there is none to name
/// (the fault is of another kind, a value's type say).
fn report_key_faults(text: &str, at: &mut Positions<'_>) -> bool {
    let Ok(table) = text.parse::<toml::Table>() else {
        return false;
    };
    let faults = schema::key_faults(&table);
    for fault in &faults {
        match fault {
            KeyFault::Unknown { section, key } => {
                let known: Vec<&str> = schema::keys_of(section).collect();
                let closest = crate::named::closest(key, known.iter().copied())
                    .map_or_else(String::new, |k| format!(" (did you mean `{k}`?)"));
                let place = if section.is_empty() { String::new() } else { format!(" in [{section}]") };
                at.error(
                    key_span(text, section, key),
                    &format!("unknown field `{key}`{place}{closest}"),
                    &format!(
                        "the fields a rule may have{place} are: {}; see rules/README.md",
                        known.join(", ")
                    ),
                );
            }
            KeyFault::Missing { section, key } => {
                let place = if section.is_empty() { String::new() } else { format!(" in [{section}]") };
                at.error(
                    key_span(text, "", section),
                    &format!("missing field `{key}`{place}"),
                    "add the field; rules/README.md lists the required ones",
                );
            }
        }
    }
    !faults.is_empty()
}

/// Where `key` is written in `section` of a rule file (`[section]`'s own
/// line for a key of the top level named like a section), or the start.
fn key_span(text: &str, section: &str, key: &str) -> Range<usize> {
    let mut offset = 0;
    let mut current = "";
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            current = name.trim();
            if section.is_empty() && current == key {
                return offset..offset + line.len();
            }
        } else if current == section {
            let name = trimmed.split('=').next().unwrap_or("").trim().trim_matches('"');
            if name == key && trimmed.contains('=') {
                return offset..offset + line.len();
            }
        }
        offset += line.len();
    }
    0..0
}

fn check_category(file: &RuleFile, role: Role, at: &mut Positions<'_>) -> Option<Category> {
    let Some(cat) = &file.category else {
        if matches!(role, Role::Cause | Role::Confirm | Role::Symptom) {
            at.error(
                file.role.span(),
                &format!("a {} rule needs a `category`", role.name()),
                "add `category = \"…\"` with a category from `logdiag rules categories`",
            );
        }
        return None;
    };
    let name = cat.get_ref();
    let Ok(category) = name.parse::<Category>() else {
        at.error(
            cat.span(),
            &format!("unknown category '{name}'"),
            "use a category from `logdiag rules categories` (the list is closed)",
        );
        return None;
    };
    let fits = match role {
        Role::Cause | Role::Confirm => category.is_crash() && category != Category::Unknown,
        Role::Symptom | Role::Fate => category.is_crash(),
        Role::Benign | Role::Marker => true,
    };
    if !fits {
        at.error(
            cat.span(),
            &format!("category '{name}' does not fit a {} rule", role.name()),
            "causes name a crash category other than 'unknown'; symptoms name a crash category",
        );
    }
    Some(category)
}

/// Every `{name}` of the title and the hint must be a group of the message
/// regex (or, for a fate rule, `ending` and `subject`); otherwise the user
/// would read `{name}` or `?` where a value was meant.
fn check_placeholders(file: &RuleFile, regex: &Regex, role: Role, at: &mut Positions<'_>) {
    let mut names: Vec<&str> = regex.capture_names().flatten().collect();
    // A fate line's title may always say how it ended and who.
    if role == Role::Fate {
        names.extend(["ending", "subject"]);
    }
    let fields = [("title", Some(file.title.get_ref().as_str()), file.title.span())];
    let hint = [(
        "hint",
        file.hint.as_ref().map(|h| h.get_ref().as_str()),
        file.hint.as_ref().map_or(0..0, |h| h.span()),
    )];
    for (field, text, span) in fields.into_iter().chain(hint) {
        for (name, _) in text.into_iter().flat_map(super::placeholders) {
            if !names.contains(&name) {
                at.error(
                    span.clone(),
                    &format!("{field} uses {{{name}}} but the message regex has no group named '{name}'"),
                    &format!("add (?P<{name}>…) to [match] message, or remove {{{name}}}"),
                );
            }
        }
    }
}

/// A field that names other rules.
#[derive(Clone, Copy, PartialEq)]
enum Refs {
    /// `explains`: a rule of an area that is not loaded at all (a rule
    /// directory loaded alone, `--rules rules/fate`) is nothing to explain
    /// here; an unknown id in a loaded area is a mistake.
    Explains,
    /// `confirms`: every id must be loaded.
    Confirms,
}

/// The indexes of the rules `refs` names, for rule `own`; an id that is
/// not loaded, or `own` itself, is an error where it is written.
fn resolve(
    refs: &[Spanned<String>],
    own: &str,
    ids: &[String],
    field: Refs,
    at: &mut Positions<'_>,
) -> Vec<usize> {
    let area = |id: &str| id.split_once('.').map_or(id, |(area, _)| area).to_string();
    let mut out = Vec::new();
    for r in refs {
        let area_loaded = || ids.iter().any(|id| area(id) == area(r.get_ref()));
        let name = match field {
            Refs::Explains => "explains",
            Refs::Confirms => "confirms",
        };
        if r.get_ref() == own {
            at.error(
                r.span(),
                &format!("`{name}` names the rule itself"),
                "name the other rules this one explains or confirms, or remove the field",
            );
            continue;
        }
        match ids.binary_search(r.get_ref()) {
            Ok(i) => out.push(i),
            Err(_) if field == Refs::Explains && !area_loaded() => {}
            Err(_) => at.error(
                r.span(),
                &format!("`{name}` names unknown rule id '{}'", r.get_ref()),
                "use the id of a loaded rule (see `logdiag rules list`)",
            ),
        }
    }
    out
}
