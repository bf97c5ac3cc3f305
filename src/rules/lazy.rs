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

    fn full(&self) -> String {
        if self.anchored {
            format!("^(?:{})$", self.source)
        } else {
            self.source.clone()
        }
    }

    fn build(&self) -> Result<Regex, regex::Error> {
        RegexBuilder::new(&self.full()).size_limit(REGEX_SIZE_LIMIT).dfa_size_limit(DFA_CACHE_LIMIT).build()
    }

    /// Checks that matching stays fast on any line: the regex's search
    /// automaton (its DFA, which the regex builds lazily while it matches)
    /// must fit in [`DFA_SIZE_LIMIT`], measured over ASCII. A pattern such as `[ab]*a[ab]{60}X`
    /// needs exponentially many states: matching it would fall back to a
    /// much slower engine on lines that explore them. Returns why not.
    pub fn check_automaton(&self) -> Result<(), String> {
        use regex_automata::dfa::dense;
        use regex_automata::util::syntax;
        let config = dense::Config::new()
            .determinize_size_limit(Some(DFA_SIZE_LIMIT))
            .dfa_size_limit(Some(DFA_SIZE_LIMIT));
        // Measured on ASCII classes: a `\w` over all of Unicode makes a big
        // but harmless automaton (log lines are mostly ASCII, and the lazy
        // DFA builds only the states a line visits); what is measured is
        // the pattern's own structure.
        let ascii = syntax::Config::new().unicode(false).utf8(false);
        match dense::Builder::new().configure(config).syntax(ascii).build(&self.full()) {
            Ok(_) => Ok(()),
            Err(e) if e.to_string().contains("limit") => Err(e.to_string()),
            // Look-around the DFA cannot build (a Unicode `\b`): matched by
            // the regex's other engines, which are linear in any case.
            Err(_) => Ok(()),
        }
    }
}

/// Largest search automaton (DFA) of one rule regex, in bytes: a user rule
/// whose automaton does not fit is refused ([`LazyRegex::check_automaton`]).
/// The largest built-in rule needs a few MiB; a pattern that can force the
/// lazy DFA to thrash needs exponentially many states, far beyond it.
pub const DFA_SIZE_LIMIT: usize = 8 << 20;

/// Most memory one rule's lazy DFA may use while matching (the states a
/// log visits; a rule that passed the check above needs far fewer).
pub const DFA_CACHE_LIMIT: usize = 2 << 20;

fn never() -> Regex {
    Regex::new(r"[^\s\S]").expect("a valid empty class")
}
