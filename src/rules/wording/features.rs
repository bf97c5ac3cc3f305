//! The words of a line as the wording model counts them: shared by the
//! binary and by `build.rs`, which counts the catalogue's lines with it, so
//! the table in the binary and the lines it is asked about are cut the
//! same way.

/// Words that say nothing alone of what failed; in a pair (`out of`, `not
/// loaded`) they do.
const FILLER: [&str; 24] = [
    "the", "an", "is", "are", "was", "were", "be", "been", "on", "in", "at", "to", "for", "of", "and", "or",
    "this", "that", "it", "its", "with", "by", "from", "not",
];

/// Words every failure uses, whatever it is: the kinds of exception and
/// record (`ValueError`, `RuntimeError`, `ERROR`) and a traceback's own
/// words. Alone or in a pair they would tell the model what was printed,
/// not what failed.
const GENERIC: [&str; 20] = [
    "error",
    "errors",
    "exception",
    "value",
    "runtime",
    "type",
    "key",
    "os",
    "attribute",
    "assertion",
    "lookup",
    "io",
    "warning",
    "info",
    "debug",
    "traceback",
    "recent",
    "call",
    "last",
    "most",
];

/// The words of a line (lowercase; a camel-case name is split into its
/// words, `OutOfMemoryError` into out, of, memory, error), but for filler
/// words alone, and each pair of adjacent words; words every failure uses
/// are left out (see `GENERIC`), and so are numbers, hex, one-letter
/// pieces and paths: they name an instance, not a kind of failure.
pub fn features(line: &str) -> impl Iterator<Item = String> {
    let words: Vec<String> = words(line).into_iter().filter(|w| !GENERIC.contains(&w.as_str())).collect();
    let pairs: Vec<String> = words.windows(2).map(|w| format!("{} {}", w[0], w[1])).collect();
    words.into_iter().filter(|w| !FILLER.contains(&w.as_str())).chain(pairs)
}

fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    // A path names a place, not a failure: its words (user, app and
    // package names) would teach the model where a failure was seen.
    let not_a_path = |token: &&str| token.matches(['/', '\\']).count() < 2;
    // Nor does a quoted class name (`'AutoModelForCausalLMWithValueHead'`):
    // its words are a model's or a library's, not the failure's. Other
    // quoted words stay (a weight's name says a checkpoint was read).
    let not_quoted_name = |token: &&str| {
        let inner = token.trim_end_matches([',', ';', '.', ')', ':']);
        let name = inner.strip_prefix(['\'', '"', '`']).and_then(|t| t.strip_suffix(['\'', '"', '`']));
        !name.is_some_and(|n| {
            let capitals = n.bytes().filter(u8::is_ascii_uppercase).count();
            n.bytes().all(|b| b.is_ascii_alphanumeric())
                && capitals >= 2
                && n.bytes().any(|b| b.is_ascii_lowercase())
        })
    };
    let text: Vec<&str> = line
        .split_whitespace()
        .filter(not_a_path)
        .filter(not_quoted_name)
        .filter(|token| !is_call_site(token))
        .map(what_it_names)
        .collect();
    for piece in text.iter().flat_map(|t| t.split(|c: char| !c.is_ascii_alphanumeric())) {
        let mut start = 0;
        let bytes = piece.as_bytes();
        for i in 1..=bytes.len() {
            let boundary = i == bytes.len()
                || (bytes[i].is_ascii_uppercase()
                    && (bytes[i - 1].is_ascii_lowercase()
                        || (bytes[i - 1].is_ascii_uppercase()
                            && bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase))));
            if boundary {
                let word = piece[start..i].to_ascii_lowercase();
                let letters = word.bytes().filter(u8::is_ascii_alphabetic).count();
                let hex = word.len() >= 6 && word.bytes().all(|b| b.is_ascii_hexdigit());
                if letters >= 2 && letters * 2 > word.len() && !hex {
                    out.push(word);
                }
                start = i;
            }
        }
    }
    out
}

/// A call site (`ray::TaskRunner.run()`, where Ray ran the task that
/// failed): it names code, not a failure. A qualified name that is no call
/// (`std::bad_alloc`) keeps its words.
fn is_call_site(token: &str) -> bool {
    token.contains("::") && token.trim_end_matches([',', ';', ':', '.']).ends_with("()")
}

/// The part of a token that names a kind of failure: of a dotted module
/// path (`ray.exceptions.RayTaskError`), its last name; of a wrapper that
/// names its cause's type (`RayTaskError(NotImplementedError)`), the
/// cause's. The modules and the wrapper say where it was raised.
fn what_it_names(token: &str) -> &str {
    let named = match token.rsplit_once('.') {
        Some((path, last))
            if path.contains('.')
                && path
                    .split('.')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
                && last.starts_with(|c: char| c.is_ascii_uppercase()) =>
        {
            last
        }
        _ => token,
    };
    match named.split_once('(') {
        Some((outer, inner)) if outer.ends_with("Error") || outer.ends_with("Exception") => {
            match inner.split_once(')') {
                Some((inner, _)) if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_alphanumeric()) => {
                    inner
                }
                _ => named,
            }
        }
        _ => named,
    }
}

/// Labels whose lines teach the model nothing: `unknown` has no wording in
/// common, and the outcomes that are no crash are not causes.
pub const NOT_TAUGHT: [&str; 4] = ["unknown", "healthy", "operator-stop", "benign-sigquit"];
