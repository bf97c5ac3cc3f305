//! Regexes compiled on first use.
//!
//! A log touches few of the rules, so the built-in rules' regexes are
//! compiled only when the prefilter first lets a line through to them;
//! start-up stays fast. User rules are compiled (and checked) when loaded.

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};

/// Largest compiled size of one rule regex; a user rule cannot make the
/// tool slow or eat memory (matching is linear-time in any case).
pub(super) const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A rule regex and, once needed, its compiled form.
#[derive(Debug, Clone)]
pub struct LazyRegex {
    source: String,
    anchored: bool,
    compiled: OnceLock<Regex>,
    /// Most memory its lazy DFA may use while matching.
    cache_limit: usize,
}

impl LazyRegex {
    /// A regex compiled when first used. `anchored` wraps it in `^(?:…)$`.
    pub fn new(source: &str, anchored: bool) -> Self {
        LazyRegex {
            source: source.to_string(),
            anchored,
            compiled: OnceLock::new(),
            cache_limit: DFA_CACHE_LIMIT,
        }
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
        RegexBuilder::new(&self.full()).size_limit(REGEX_SIZE_LIMIT).dfa_size_limit(self.cache_limit).build()
    }

    /// Checks that matching stays fast on any line: the regex's search
    /// automaton (its DFA, which the regex builds lazily while it matches)
    /// must fit in `DFA_SIZE_LIMIT`, measured over ASCII. A pattern such as `[ab]*a[ab]{60}X`
    /// needs exponentially many states: matching it would fall back to a
    /// much slower engine on lines that explore them. Returns why not.
    /// One that fits gets a lazy DFA cache that holds all of it, so lines
    /// that visit many of its states (`[ab]*a[ab]{14}X` over random `a`s
    /// and `b`s) do not make the cache thrash.
    pub fn check_automaton(&mut self) -> Result<(), String> {
        let size = self.automaton_size()?;
        let wanted = size.saturating_mul(2).max(DFA_CACHE_LIMIT);
        if wanted > self.cache_limit {
            self.cache_limit = wanted;
            if let Ok(regex) = self.build() {
                self.compiled = OnceLock::from(regex);
            }
        }
        Ok(())
    }

    /// Most memory its lazy DFA may use while matching.
    pub fn cache_limit(&self) -> usize {
        self.cache_limit
    }

    /// The size in bytes of the regex's search automaton over ASCII (0
    /// when it cannot be built as one), or why it is too big.
    fn automaton_size(&self) -> Result<usize, String> {
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
            Ok(dfa) => Ok(dfa.memory_usage()),
            Err(e) if e.to_string().contains("limit") => Err(e.to_string()),
            // Look-around the DFA cannot build (a Unicode `\b`): matched by
            // the regex's other engines, which are linear in any case.
            Err(_) => Ok(0),
        }
    }
}

/// Largest search automaton (DFA) of one rule regex, in bytes: a user rule
/// whose automaton does not fit is refused ([`LazyRegex::check_automaton`]).
/// The largest built-in rule needs a few MiB; a pattern that can force the
/// lazy DFA to thrash needs exponentially many states, far beyond it.
pub(super) const DFA_SIZE_LIMIT: usize = 8 << 20;

/// Most memory one rule's lazy DFA may use while matching (the states a
/// log visits), unless its whole automaton needs more: then it gets twice
/// that ([`LazyRegex::check_automaton`]), at most twice [`DFA_SIZE_LIMIT`].
pub(super) const DFA_CACHE_LIMIT: usize = 2 << 20;

fn never() -> Regex {
    Regex::new(r"[^\s\S]").expect("a valid empty class")
}
