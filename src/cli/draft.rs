//! `logdiag rules draft FILE`: a rule skeleton for a failure no rule names
//! in a log, written from its fingerprint: an id, a regex whose masked
//! parts are named captures, the literals the prefilter will require, the
//! decisive line as its sample, and the category its words point to.

use std::fs;
use std::io::Write;

use super::{load_rules, RuleArgs};
use crate::diagnose::feed_source;
use crate::engine::diagnosis::{Diagnosis, RootCause};
use crate::engine::{Engine, JudgeOptions};
use crate::error::Error;
use crate::exit::Exit;

/// Diagnoses `path` and writes a rule for the root cause of run `run` (by
/// default the last crashed run whose cause no rule named).
pub(super) fn run(
    path: &str,
    run: Option<usize>,
    args: &RuleArgs,
    out: &mut dyn Write,
) -> Result<Exit, Error> {
    let rules = load_rules(args)?;
    let file = fs::File::open(path).map_err(|e| Error::Input(format!("{path}: {e}")))?;
    let reader = crate::input::decode(Box::new(file)).map_err(|e| Error::Input(format!("{path}: {e}")))?;
    let mut engine = Engine::new(&rules);
    feed_source(&mut engine, path, reader).map_err(|e| Error::Input(format!("{path}: {e}")))?;
    let diagnosis = engine.diagnose(&JudgeOptions::default());
    let cause = unnamed_cause(&diagnosis, run).map_err(Error::Usage)?;
    out.write_all(skeleton(cause).as_bytes())?;
    Ok(Exit::Healthy)
}

/// The root cause to draft a rule for: run `run`'s, or the last unnamed
/// one; an error says why there is none.
fn unnamed_cause(diagnosis: &Diagnosis, run: Option<usize>) -> Result<&RootCause, String> {
    let unnamed =
        |r: &&crate::engine::diagnosis::Run| r.root_cause.as_ref().is_some_and(|c| c.fingerprint.is_some());
    let chosen = match run {
        Some(number) => {
            let found = diagnosis.runs.iter().find(|r| r.number == number);
            let found =
                found.ok_or_else(|| format!("no run {number} (the log has {})", diagnosis.runs.len()))?;
            Some(found)
                .filter(unnamed)
                .ok_or_else(|| format!("run {number} has no failure that no rule names"))?
        }
        None => diagnosis
            .runs
            .iter()
            .rev()
            .find(unnamed)
            .ok_or("no failure that no rule names: every crash is named by a rule, or nothing crashed")?,
    };
    Ok(chosen.root_cause.as_ref().expect("an unnamed run has a root cause"))
}

/// The rule file, as TOML.
fn skeleton(cause: &RootCause) -> String {
    let fingerprint = cause.fingerprint.as_ref().expect("an unnamed cause has a fingerprint");
    let decisive = cause.evidence.first();
    let (pattern, title) = fingerprint.pattern();
    let mut toml = String::new();
    let from = decisive.map_or_else(String::new, |e| format!(" from {}:{}", e.source, e.line));
    toml += &format!("# Drafted by `logdiag rules draft`{from} (fingerprint {}).\n", fingerprint.id);
    toml += "# Save it in a rules directory, name the failure in the title, say what to do in the hint,\n";
    toml += "# then check it: `logdiag rules check DIR` and `logdiag --rules DIR LOG`.\n";
    toml += &format!("id = {}\n", basic(&format!("local.{}", slug(&fingerprint.kind, &fingerprint.message))));
    match &cause.inferred {
        Some(inferred) => {
            toml += "role = \"cause\"\n";
            toml += &format!(
                "# Inferred from its wording ({}; score {}): check it against `logdiag rules categories`.\n",
                inferred.words.join(", "),
                inferred.score
            );
        }
        None => {
            // A cause names a category; until one is chosen, the rule
            // reads the line as a symptom of an unknown cause.
            toml += "# No category was inferred: pick one from `logdiag rules categories`, then make the role \"cause\".\n";
            toml += "role = \"symptom\"\n";
            toml += "why = \"TODO: what this line says of the failure\"\n";
        }
    }
    toml += &format!("category = {}\n", basic(cause.category.name()));
    toml += &format!("title = {}\n", basic(&title));
    toml += "hint = \"\"\"TODO: what the user should do about it.\"\"\"\n\n[match]\n";
    if let Some(literals) = crate::rules::required_literals(&pattern) {
        let shown: Vec<String> =
            literals.iter().map(|l| format!("{:?}", String::from_utf8_lossy(l))).collect();
        toml += &format!("# The prefilter requires one of: {}\n", shown.join(", "));
    }
    toml += &format!("message = {}\n\n[test]\nsamples = [\n", literal(&pattern));
    if let Some(line) = decisive {
        toml += &format!("  {},\n", literal(&line.text));
    }
    toml += "]\n";
    toml
}

/// A TOML literal string (`'''…'''`, no escapes to read) when the text
/// allows one, else a basic string.
fn literal(text: &str) -> String {
    if text.contains("'''")
        || text.contains(['\n', '\r'])
        || text.ends_with('\'')
        || text.chars().any(char::is_control)
    {
        basic(text)
    } else {
        format!("'''{text}'''")
    }
}

/// A TOML basic string, escaped.
fn basic(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// A file-name-like id from the failure's kind (an exception type's last
/// part, `ShardError` → `shard-error`) or, for other kinds, its message's
/// first words.
fn slug(kind: &str, message: &str) -> String {
    let last = kind.rsplit('.').next().unwrap_or(kind);
    let is_type = last.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && !kind.contains(' ');
    let unmasked = crate::engine::fingerprint::MASK_TOKENS
        .iter()
        .fold(message.to_string(), |m, mask| m.replace(mask, " "));
    let source = if is_type { last } else { &unmasked };
    let mut words: Vec<String> = Vec::new();
    for piece in source.split(|c: char| !c.is_ascii_alphanumeric()).filter(|p| !p.is_empty()) {
        let mut word = String::new();
        for (i, c) in piece.char_indices() {
            if c.is_ascii_uppercase() && i > 0 && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.push(c.to_ascii_lowercase());
        }
        words.push(word);
        if words.len() >= 4 {
            break;
        }
    }
    match words.is_empty() {
        true => "unrecognised-failure".to_string(),
        false => words.join("-"),
    }
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn ids_read_like_the_failure() {
        assert_eq!(slug("shardio.errors.ShardError", "x"), "shard-error");
        assert_eq!(slug("error record", "Failed to watch metrics: <n>"), "failed-to-watch-metrics");
        assert_eq!(slug("process.last-words", "<n> <hex>"), "unrecognised-failure");
        assert_eq!(slug("native crash", "<n>"), "unrecognised-failure");
    }
}
