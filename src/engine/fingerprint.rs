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

impl Fingerprint {
    /// The fingerprint of a failure of `kind` whose decisive message is
    /// `message`, raised under `frames` (`(file, function)`, outermost
    /// first; only the innermost are kept).
    pub fn new<'a>(kind: &str, message: &str, frames: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let frames: Vec<String> = frames
            .into_iter()
            .map(|(file, function)| format!("{} in {function}", package_path(file)))
            .collect();
        let frames = frames[frames.len().saturating_sub(FRAMES)..].to_vec();
        let message = mask(message.trim());
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

/// A file's path from its package on (`…/site-packages/vllm/worker.py` →
/// `vllm/worker.py`), or its last two parts: the same file on another
/// machine or in another environment reads the same.
fn package_path(file: &str) -> String {
    let file = file.replace('\\', "/");
    for marker in ["site-packages/", "dist-packages/"] {
        if let Some(at) = file.rfind(marker) {
            return file[at + marker.len()..].to_string();
        }
    }
    let parts: Vec<&str> = file.rsplit('/').take(2).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// The message with what names an instance masked: UUIDs and long hex or
/// digit-laden ids as `<id>`, `0x…` as `<hex>`, absolute paths as
/// `<path>`, and every other run of digits as `<n>`.
pub fn mask(message: &str) -> String {
    static PARTS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"(?x)
            (?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)
            | (?P<hex>\b0x[0-9a-fA-F]+\b)
            | (?P<lead>^|[\s'"=(\[:,])(?P<path>(?:[A-Za-z]:\\|~?/)[^\s'"]*[/\\][^\s'",):]*)
            | (?P<word>[0-9A-Za-z_]+)"#,
        )
        .expect("the mask pattern compiles")
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
    fn the_id_is_fixed_by_its_parts() {
        // FNV-1a of the parts, each followed by 0xff: the same in every build.
        assert_eq!(Fingerprint::new("E", "m", []).id, Fingerprint::new("E", "m", []).id);
        assert_ne!(Fingerprint::new("Em", "", []).id, Fingerprint::new("E", "m", []).id);
    }
}
