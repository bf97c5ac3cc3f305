//! Which units `--unit` names: journalctl's `-u` globs, matched against a
//! unit's name and, for a pod's container, its pod.

use crate::notice::Notice;

/// The units `--unit` names: globs as journalctl's `-u` takes them
/// (`sglang`, `sglang*`, `trainer@*.service`). A pattern without a dot or
/// a slash names a service (`sglang` is `sglang.service`); a pod is named
/// whole (`pod/llm-0/server`), by its pod (`llm-0`, `pod/llm-0`) or by a
/// glob of those.
#[derive(Debug, Clone, Default)]
pub struct UnitFilter {
    patterns: Vec<String>,
}

impl UnitFilter {
    /// A filter of these patterns (empty: every unit).
    pub fn new(patterns: &[String]) -> Self {
        UnitFilter { patterns: patterns.to_vec() }
    }

    /// No pattern given: every unit is judged.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Does some pattern name unit `name` (a log that names no unit is
    /// never named)?
    pub fn matches(&self, name: Option<&str>) -> bool {
        let Some(name) = name else { return false };
        self.patterns.iter().any(|pattern| {
            let names = unit_aliases(name);
            let service =
                (!pattern.contains(['.', '/']) && !is_glob(pattern)).then(|| format!("{pattern}.service"));
            names.iter().any(|n| glob(pattern, n) || service.as_deref() == Some(*n))
        })
    }

    /// The notice for a source none of whose units the patterns name.
    pub fn no_match_notice(&self, named: &[&str]) -> Notice {
        let seen = named.iter().map(|n| n.to_string()).collect();
        Notice::NoUnitMatches { patterns: self.patterns.clone(), seen }
    }
}

/// The names a unit answers to: itself, and for a pod's container
/// (`pod/llm-0/server`) its pod (`pod/llm-0`, `llm-0`) and `llm-0/server`.
fn unit_aliases(name: &str) -> Vec<&str> {
    let mut names = vec![name];
    if let Some(rest) = name.strip_prefix("pod/") {
        names.push(rest);
        if let Some((pod, _)) = rest.split_once('/') {
            names.push(pod);
            names.push(&name[..4 + pod.len()]);
        }
    }
    names
}

fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// fnmatch-style matching of `*`, `?` and `[…]` (with `!` or `^` to
/// negate) against the whole of `text`.
fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Backtracking over the last `*` only: linear enough for unit names.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => class(&p, pi, t[ti]),
            Some(&c) if c == t[ti] => Some(pi + 1),
            _ => None,
        };
        match (step, star) {
            (Some(next), _) => {
                pi = next;
                ti += 1;
            }
            (None, Some((star_pi, star_ti))) => {
                pi = star_pi + 1;
                ti = star_ti + 1;
                star = Some((star_pi, star_ti + 1));
            }
            (None, None) => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Matches `c` against the class opening at `p[at]`; the position after
/// it when it matches.
fn class(p: &[char], at: usize, c: char) -> Option<usize> {
    let mut i = at + 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    while let Some(&x) = p.get(i) {
        if x == ']' && !first {
            return (found != negate).then_some(i + 1);
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            found |= x <= c && c <= p[i + 2];
            i += 3;
        } else {
            found |= x == c;
            i += 1;
        }
    }
    // No closing bracket: a literal `[`.
    (c == '[').then_some(at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_patterns_work_like_journalctl() {
        let filter = |p: &[&str]| UnitFilter::new(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let sglang = filter(&["sglang"]);
        assert!(sglang.matches(Some("sglang.service")));
        assert!(!sglang.matches(Some("sglang-k26.service")));
        assert!(!sglang.matches(None));
        assert!(filter(&["sglang*"]).matches(Some("sglang-k26.service")));
        assert!(filter(&["trainer@*.service"]).matches(Some("trainer@3.service")));
        assert!(filter(&["tr[a-c]iner.service"]).matches(Some("trainer.service")));
        assert!(!filter(&["tr[!a]iner.service"]).matches(Some("trainer.service")));
        assert!(filter(&["x", "trainer.service"]).matches(Some("trainer.service")));
        let pods = filter(&["llm-0"]);
        assert!(pods.matches(Some("pod/llm-0/server")));
        assert!(!pods.matches(Some("pod/llm-01/server")));
        assert!(filter(&["pod/llm-*"]).matches(Some("pod/llm-1/server")));
        assert!(filter(&["sglang-1"]).matches(Some("sglang-1")));
        assert!(glob("a*b*c", "aXbYbZc") && !glob("a*b*c", "aXbY") && glob("[", "["));
    }
}
