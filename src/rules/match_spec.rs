//! Compiling the `[match]` section of a rule file into a rule's
//! [`Matcher`]: its regexes (checked for size and cost when the file's
//! samples are checked), levels and prefix formats.

use toml::Spanned;

use super::error::Positions;
use super::lazy::{LazyRegex, DFA_SIZE_LIMIT, REGEX_SIZE_LIMIT};
use super::schema::MatchSpec;
use super::Matcher;
use crate::framing::{Format, Level};

/// The compiled conditions of `[match]`, every problem reported; `None`
/// when the message regex is missing or broken. `validate` compiles the
/// regexes now (else they compile on first use).
pub(super) fn compile_matcher(m: &MatchSpec, validate: bool, at: &mut Positions<'_>) -> Option<Matcher> {
    let message = compile_regex(&m.message, false, validate, at);
    let not = m.not.as_ref().and_then(|r| compile_regex(r, false, validate, at));
    let exception = m.exception.as_ref().and_then(|r| compile_regex(r, true, validate, at));
    let frame = m.frame.as_ref().and_then(|r| compile_regex(r, false, validate, at));
    let identifier = m.identifier.as_ref().and_then(|r| compile_regex(r, true, validate, at));
    let levels = parse_levels(&m.level, at);
    let formats = parse_formats(&m.format, at);
    let not_formats = parse_formats(&m.not_format, at);
    Some(Matcher { message: message?, not, exception, frame, identifier, levels, formats, not_formats })
}

fn parse_levels(names: &[Spanned<String>], at: &mut Positions<'_>) -> Vec<Level> {
    let mut levels = Vec::new();
    for level in names {
        match Level::parse(level.get_ref()) {
            Some(l) => levels.push(l),
            None => at.error(
                level.span(),
                &format!("unknown level '{}'", level.get_ref()),
                "use debug, info, notice, warning, error, critical or fatal",
            ),
        }
    }
    levels
}

fn compile_regex(
    source: &Spanned<String>,
    anchored: bool,
    validate: bool,
    at: &mut Positions<'_>,
) -> Option<LazyRegex> {
    let pattern = source.get_ref();
    if pattern.is_empty() {
        at.error(source.span(), "empty regex", "write a pattern that matches the line's text");
        return None;
    }
    if !validate {
        return Some(LazyRegex::new(pattern, anchored));
    }
    match LazyRegex::compile_now(pattern, anchored) {
        Ok(mut r) => match r.check_automaton() {
            Ok(()) => Some(r),
            Err(why) => {
                at.error(
                    source.span(),
                    &format!(
                        "regex can make matching slow: its search automaton needs more than {} MiB ({why})",
                        DFA_SIZE_LIMIT >> 20
                    ),
                    "a repetition after an open-ended class (`[ab]*a[ab]{60}`) needs exponentially many states; \
                     match literal text, bound the repetitions, or anchor the pattern",
                );
                None
            }
        },
        Err(e) => {
            match &e {
                regex::Error::CompiledTooBig(_) => at.error(
                    source.span(),
                    &format!(
                        "regex is too big (compiled, it exceeds the {} MiB limit)",
                        REGEX_SIZE_LIMIT >> 20
                    ),
                    "use smaller repetition counts (`\\w{1000}` is a thousand copies) or several rules",
                ),
                _ => at.error(
                    source.span(),
                    &format!("invalid regex: {}", regex_problem(&e)),
                    "see https://docs.rs/regex/latest/regex/#syntax; escape literal ( ) [ ] . with \\",
                ),
            }
            None
        }
    }
}

/// The one-line problem in a regex error (its last line, without the
/// `error: ` prefix; the lines before it repeat the pattern).
fn regex_problem(e: &regex::Error) -> String {
    let text = e.to_string();
    let last = text.lines().last().unwrap_or("").trim();
    last.strip_prefix("error: ").unwrap_or(last).to_string()
}

fn parse_formats(names: &[Spanned<String>], at: &mut Positions<'_>) -> Vec<Format> {
    let mut formats = Vec::new();
    for name in names {
        match name.get_ref().parse::<Format>().ok() {
            Some(f) => formats.push(f),
            None => at.error(
                name.span(),
                &format!("unknown format '{}'", name.get_ref()),
                "use a name from `inputs[].formats` in a JSON report (sglang, vllm, journal-short, dmesg…)",
            ),
        }
    }
    formats
}
