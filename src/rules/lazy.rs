//! Regexes compiled on first use.
//!
//! A log touches few of the rules, so the built-in rules' regexes are
//! compiled only when the prefilter first lets a line through to them;
//! start-up stays fast. User rules are compiled (and checked) when loaded.

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};

/// Largest compiled size of one rule regex; a user rule cannot make the
/// tool slow or eat memory (matching is linear-time in any case).
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A rule regex and, once needed, its compiled form.
#[derive(Debug, Clone)]
pub struct LazyRegex {
    source: String,
    anchored: bool,
    compiled: OnceLock<Regex>,
}

impl LazyRegex {
    /// A regex compiled when first used. `anchored` wraps it in `^(?:…)$`.
    pub fn new(source: &str, anchored: bool) -> Self {
        LazyRegex { source: source.to_string(), anchored, compiled: OnceLock::new() }
    }

    /// Compiles now, reporting a syntax error or an over-size pattern.
    pub fn compile_now(source: &str, anchored: bool) -> Result<Self, regex::Error> {
        let lazy = LazyRegex::new(source, anchored);
        let regex = lazy.build()?;
        let _ = lazy.compiled.set(regex);
        Ok(lazy)
    }

    /// The pattern as written in the rule.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The compiled regex. A built-in pattern that does not compile (the
    /// test suite forbids it) matches nothing instead of panicking.
    pub fn get(&self) -> &Regex {
        self.compiled.get_or_init(|| self.build().unwrap_or_else(|_| never()))
    }

    /// True if the regex matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.get().is_match(text)
    }

    fn build(&self) -> Result<Regex, regex::Error> {
        let full = if self.anchored { format!("^(?:{})$", self.source) } else { self.source.clone() };
        RegexBuilder::new(&full).size_limit(REGEX_SIZE_LIMIT).build()
    }
}

fn never() -> Regex {
    Regex::new(r"[^\s\S]").expect("a valid empty class")
}
