//! Fingerprints of failures no rule names: what stays the same when the
//! same failure happens again in another run, file or host.
//!
//! A fingerprint is the failure's kind (its exception type, or the rule
//! that read a process's end), its decisive message with what names an
//! instance masked (numbers, hex, addresses, ids, paths), and, for a
//! traceback, the innermost frames' files and functions (no line
//! numbers; paths from their package on). Its id is a hash of the three
//! that does not change between builds or machines.

use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde::Serialize;

/// How many of a traceback's innermost frames a fingerprint names.
const FRAMES: usize = 3;

/// How much of the masked message a report line shows.
const MESSAGE_SHOWN: usize = 100;

/// A stable name for a failure no rule names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fingerprint {
    /// 16 hex digits, a hash of the kind, the masked message and the
    /// frames.
    pub id: String,
    /// The exception type (`RuntimeError`), the rule that read the end
    /// (`fate.exit-status`), or what printed it (`error record`).
    pub kind: String,
    /// The decisive message, its instance-specific parts masked.
    pub message: String,
    /// The innermost frames, outermost first: `package/file.py in function`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
}

/// What a fingerprint is taken from, kept for every failure as it is read
/// (cheap: no masking); the fingerprint itself is computed only for the
/// failures a report names as a root cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    kind: String,
    message: String,
    frames: Vec<String>,
}

impl Parts {
    /// A failure of `kind` whose decisive message is `message`, raised
    /// under `frames` (`(file, function)`, outermost first; only the
    /// innermost are kept).
    pub fn new<'a>(kind: &str, message: &str, frames: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let frames: Vec<String> = frames
            .into_iter()
            .map(|(file, function)| format!("{} in {function}", package_path(file)))
            .collect();
        let frames = frames[frames.len().saturating_sub(FRAMES)..].to_vec();
        Parts { kind: kind.to_string(), message: message.trim().to_string(), frames }
    }

    /// The fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::from_masked(&self.kind, mask(&self.message), self.frames.clone())
    }
}

impl Fingerprint {
    /// The fingerprint of a failure of `kind` whose decisive message is
    /// `message`, raised under `frames` (`(file, function)`, outermost
    /// first; only the innermost are kept).
    pub fn new<'a>(kind: &str, message: &str, frames: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Parts::new(kind, message, frames).fingerprint()
    }

    fn from_masked(kind: &str, message: String, frames: Vec<String>) -> Self {
        let mut hash = Fnv::default();
        hash.write(kind);
        hash.write(&message);
        for frame in &frames {
            hash.write(frame);
        }
        Fingerprint { id: format!("{:016x}", hash.0), kind: kind.to_string(), message, frames }
    }

    /// One line for a report: `fingerprint 3f9a… (error record: <masked
    /// message>; in vllm/worker.py in execute_model)`; the kind is not
    /// repeated when the message starts with it.
    pub fn describe(&self) -> String {
        let message = super::shorten(&self.message, MESSAGE_SHOWN);
        let mut out = match message.starts_with(&self.kind) {
            true => format!("fingerprint {} ({message}", self.id),
            false => format!("fingerprint {} ({}: {message}", self.id, self.kind),
        };
        if let Some(innermost) = self.frames.last() {
            out.push_str("; in ");
            out.push_str(innermost);
        }
        out.push(')');
        out
    }
}

/// The longest stretch of a masked message a drafted regex spells out.
const PATTERN_CHARS: usize = 200;

impl Fingerprint {
    /// A regex for messages like the one this was taken from: its masked
    /// parts become named captures (`n1`, `hex1`, `id1`, `path1`, …), the
    /// rest is literal; a long message is cut after its first
    /// `PATTERN_CHARS` characters. Also a title template naming the
    /// same captures (`{n1}`).
    pub fn pattern(&self) -> (String, String) {
        let mut regex = String::new();
        let mut title = String::new();
        let mut counts = [0usize; MASKS.len()];
        let mut rest = self.message.as_str();
        while !rest.is_empty() && regex.len() < PATTERN_CHARS {
            let next = MASKS
                .iter()
                .enumerate()
                .filter_map(|(i, (mask, ..))| rest.find(mask).map(|at| (at, i)))
                .min();
            let literal_end = next.map_or(rest.len(), |(at, _)| at);
            let literal: String =
                rest[..literal_end].chars().take(PATTERN_CHARS.saturating_sub(regex.len()).max(1)).collect();
            regex.push_str(&regex::escape(&literal));
            title.push_str(&literal.replace('{', "(").replace('}', ")"));
            if literal.len() < literal_end {
                break;
            }
            let Some((at, i)) = next else { break };
            let (mask, name, shape) = MASKS[i];
            counts[i] += 1;
            regex.push_str(&format!("(?P<{name}{}>{shape})", counts[i]));
            title.push_str(&format!("{{{name}{}}}", counts[i]));
            rest = &rest[at + mask.len()..];
        }
        (regex, title)
    }
}

/// A file's path from its package on (`…/site-packages/vllm/worker.py` →
/// `vllm/worker.py`), or its last two parts: the same file on another
/// machine or in another environment reads the same.
fn package_path(file: &str) -> String {
    let file = file.replace('\\', "/");
    if let Some(in_package) = super::in_package(&file) {
        return in_package.to_string();
    }
    let parts: Vec<&str> = file.rsplit('/').take(2).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// A UUID, masked as `<id>`.
const UUID: &str = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
/// A `0x…` number, masked as `<hex>`.
const HEX: &str = "0x[0-9a-fA-F]+";
/// An absolute path (`/…/…`, `~/…`, `C:\…`), masked as `<path>`; a
/// trailing `:`, `,` or `)` is the sentence's.
const PATH: &str = r#"(?:[A-Za-z]:\\|~?/)[^\s'"]*[/\\][^\s'",):]*"#;

/// The masks a fingerprint's message may hold.
pub const MASK_TOKENS: [&str; 4] = ["<n>", "<hex>", "<id>", "<path>"];

/// What each mask stands for in a rule's regex: the same shapes the mask
/// replaced (an id is a word or a UUID; a number, digits).
const MASKS: [(&str, &str, &str); 4] = [
    (MASK_TOKENS[0], "n", r"\d+"),
    (MASK_TOKENS[1], "hex", HEX),
    (MASK_TOKENS[2], "id", r"[\w-]+"),
    (MASK_TOKENS[3], "path", PATH),
];

/// The message with what names an instance masked: UUIDs and long hex or
/// digit-laden ids as `<id>`, `0x…` as `<hex>`, absolute paths as
/// `<path>`, and every other run of digits as `<n>`.
pub fn mask(message: &str) -> String {
    static PARTS: LazyLock<Regex> = LazyLock::new(|| {
        let pattern = format!(
            r#"(?P<uuid>\b{UUID}\b)|(?P<hex>\b{HEX}\b)|(?P<lead>^|[\s'"=(\[:,])(?P<path>{PATH})|(?P<word>[0-9A-Za-z_]+)"#
        );
        Regex::new(&pattern).expect("the mask pattern compiles")
    });
    PARTS
        .replace_all(message, |c: &Captures| {
            if c.name("uuid").is_some() {
                return "<id>".to_string();
            }
            if c.name("hex").is_some() {
                return "<hex>".to_string();
            }
            if c.name("path").is_some() {
                return format!("{}<path>", &c["lead"]);
            }
            masked_word(&c["word"])
        })
        .into_owned()
}

/// A word as a fingerprint keeps it: an id (hex of eight or more with a
/// digit and a letter, or sixteen or more characters with four digits
/// and a letter) as `<id>`, else each run of digits as `<n>`.
fn masked_word(word: &str) -> String {
    let digits = word.bytes().filter(u8::is_ascii_digit).count();
    if digits == 0 {
        return word.to_string();
    }
    let lettered = digits < word.len();
    let hex = word.len() >= 8 && word.bytes().all(|b| b.is_ascii_hexdigit());
    if lettered && (hex || (word.len() >= 16 && digits >= 4)) {
        return "<id>".to_string();
    }
    let mut out = String::with_capacity(word.len());
    let mut in_number = false;
    for c in word.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push_str("<n>");
            }
            in_number = true;
        } else {
            out.push(c);
            in_number = false;
        }
    }
    out
}

/// 64-bit FNV-1a: a hash fixed by its definition, so a fingerprint reads
/// the same from every build (std's hasher promises no such thing).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Adds a part, then a separator no part contains.
    fn write(&mut self, part: &str) {
        for &b in part.as_bytes().iter().chain(&[0xff]) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_are_masked_and_kinds_kept() {
        assert_eq!(
            mask("Failed to open /home/alice/models/qwen/config.json: request 3f2a9c1e7b at 0x7f4fcc300000 took 12.5s on cuda:3"),
            "Failed to open <path>: request <id> at <hex> took <n>.<n>s on cuda:<n>"
        );
        assert_eq!(mask("KeyError: 'model.layers.17.mlp.weight'"), "KeyError: 'model.layers.<n>.mlp.weight'");
        assert_eq!(
            mask(r"panic: unable to load model: D:\Models\blobs\sha256-ac9b"),
            "panic: unable to load model: <path>"
        );
        assert_eq!(mask("job 550e8400-e29b-41d4-a716-446655440000 on sm_90"), "job <id> on sm_<n>");
        // A rate is no path.
        assert_eq!(mask("3.5 tok/s"), "<n>.<n> tok/s");
        // A long number is a number.
        assert_eq!(mask("buffer of size 437944320"), "buffer of size <n>");
    }

    #[test]
    fn the_same_failure_elsewhere_has_the_same_fingerprint() {
        let on_a = Fingerprint::new(
            "ValueError",
            "ValueError: bad shard 3 in /home/a/ckpt/model-00003.safetensors",
            [
                ("/home/a/venv/lib/python3.11/site-packages/foo/load.py", "read"),
                ("/home/a/venv/lib/python3.11/site-packages/foo/shard.py", "check"),
            ],
        );
        let on_b = Fingerprint::new(
            "ValueError",
            "ValueError: bad shard 7 in /data/b/model-00007.safetensors",
            [
                ("/usr/local/lib/python3.10/dist-packages/foo/load.py", "read"),
                ("/usr/local/lib/python3.10/dist-packages/foo/shard.py", "check"),
            ],
        );
        assert_eq!(on_a, on_b);
        assert_eq!(on_a.frames, ["foo/load.py in read", "foo/shard.py in check"]);
        assert_eq!(on_a.id.len(), 16);
        // Another function raising it is another failure.
        let elsewhere =
            Fingerprint::new("ValueError", "ValueError: bad shard 3 in /x/y", [("/x/foo/other.py", "read")]);
        assert_ne!(on_a.id, elsewhere.id);
    }

    #[test]
    fn its_pattern_matches_the_message_and_its_kin() {
        let message = "ShardError: shard 3 of /data/a/part-00003.bin failed at 0x7f3a {step}";
        let fingerprint = Fingerprint::new("ShardError", message, []);
        let (pattern, title) = fingerprint.pattern();
        let regex = Regex::new(&pattern).unwrap();
        assert!(regex.is_match(message), "{pattern}");
        let kin = regex
            .captures("ShardError: shard 17 of /srv/b/part-00017.bin failed at 0x1 {step}")
            .expect(&pattern);
        assert_eq!(&kin["path1"], "/srv/b/part-00017.bin");
        assert_eq!(&kin["n1"], "17");
        assert_eq!(title, "ShardError: shard {n1} of {path1} failed at {hex1} (step)");
    }

    #[test]
    fn the_id_is_fixed_by_its_parts() {
        // FNV-1a of the parts, each followed by 0xff: the same in every build.
        assert_eq!(Fingerprint::new("E", "m", []).id, Fingerprint::new("E", "m", []).id);
        assert_ne!(Fingerprint::new("Em", "", []).id, Fingerprint::new("E", "m", []).id);
    }
}
