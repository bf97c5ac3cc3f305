//! A mutation fuzzer that runs on the stable toolchain, for as long as it
//! is told (`cargo fuzz` needs nightly and crates this machine may not
//! have; tests/fuzz holds its targets). It starts from the golden
//! fixtures and the rule files, and mutates them the ways hostile input
//! arrives: JSON records among text and text among JSON records, damaged
//! and over-long records, Docker json-file lines, newest-first order, cut
//! and spliced logs, random bytes; and user rules with mutated patterns.
//! For every input it checks what must hold: no panic, no raw control or
//! format character in the text report, a JSON report that parses, a
//! diagnosis that does not depend on how reads are split, and rule loading
//! that answers (rules or located errors).
//!
//!     LOGDIAG_SOAK_SECONDS=3600 cargo test --release -- --ignored soak
//!
//! A failing input is written to target/soak-failures/ before the panic
//! is passed on.

use std::io::{self, BufReader, Read};
use std::time::{Duration, Instant};

use logdiag::diagnose::feed_source;
use logdiag::engine::{Diagnosis, Engine, JudgeOptions};
use logdiag::report::{write_json, write_text, TextOptions};
use logdiag::rules::load::load_texts;
use logdiag::rules::RuleSet;

use crate::util::root;

/// xorshift64*: reproducible from its seed, printed at the start.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn seeds() -> Vec<Vec<u8>> {
    let mut logs = Vec::new();
    for entry in std::fs::read_dir(root().join("fixtures")).unwrap() {
        let path = entry.unwrap().path().join("input.log");
        if let Ok(bytes) = std::fs::read(&path) {
            logs.push(bytes[..bytes.len().min(64 * 1024)].to_vec());
        }
    }
    logs.sort();
    logs
}

fn rule_texts() -> Vec<String> {
    let mut texts = Vec::new();
    for entry in walk(&root().join("rules")) {
        if entry.extension().is_some_and(|e| e == "toml") {
            texts.push(std::fs::read_to_string(&entry).unwrap());
        }
    }
    texts.sort();
    texts
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// One line as a journal JSON record, in one of the JSON modes.
fn as_json_record(line: &[u8], i: usize, random: &mut Random) -> Vec<u8> {
    let message = String::from_utf8_lossy(line);
    let record = match random.below(4) {
        0 => serde_json::json!({"log": format!("{message}\n"), "stream": "stderr", "time": format!("2026-05-25T20:{:02}:00Z", i % 60)}),
        _ => serde_json::json!({"__CURSOR": format!("s=1;i={i}"), "__REALTIME_TIMESTAMP": (1_748_000_000_000_000u64 + i as u64).to_string(), "_PID": "42", "MESSAGE": message}),
    }
    .to_string();
    let mut out = match random.below(4) {
        0 => format!("\x1e{record}"),
        1 => format!("data: {record}\n"),
        _ => record,
    }
    .into_bytes();
    match random.below(8) {
        // Cut before its end.
        0 => out.truncate(random.below(out.len() + 1)),
        // A lone surrogate.
        1 => out.extend_from_slice(b"\\ud800\""),
        _ => {}
    }
    out
}

fn mutate(seeds: &[Vec<u8>], random: &mut Random) -> Vec<u8> {
    let mut log = random.pick(seeds).clone();
    for _ in 0..1 + random.below(3) {
        match random.below(9) {
            // Some lines become JSON records.
            0 | 1 => {
                let every = 1 + random.below(4);
                let mut out = Vec::new();
                for (i, line) in log.split(|&b| b == b'\n').enumerate() {
                    if i % every == 0 {
                        out.extend(as_json_record(line, i, random));
                    } else {
                        out.extend_from_slice(line);
                    }
                    out.push(b'\n');
                }
                log = out;
            }
            // Newest first.
            2 => {
                let mut lines: Vec<&[u8]> = log.split(|&b| b == b'\n').collect();
                lines.reverse();
                log = lines.join(&b'\n');
            }
            // An application's JSON line on top.
            3 => {
                let mut out = br#"{"level":"info","msg":"launcher starting"}"#.to_vec();
                out.push(b'\n');
                out.extend(log);
                log = out;
            }
            // Cut.
            4 => log.truncate(random.below(log.len() + 1)),
            // Spliced with another log.
            5 => {
                let other = random.pick(seeds);
                let at = random.below(log.len() + 1);
                let from = random.below(other.len() + 1);
                log.splice(at..at, other[from..].iter().copied());
            }
            // Random bytes, flipped or inserted.
            6 | 7 => {
                for _ in 0..1 + random.below(16) {
                    let byte = *random.pick(&[
                        0u8, 0x1b, b'\n', b'\r', b'{', b'}', b'"', b'\\', 0xff, 0xe2, 0x80, 0x8b, b'[', b']',
                        b'#',
                    ]);
                    let at = random.below(log.len() + 1);
                    if random.below(2) == 0 && at < log.len() {
                        log[at] = byte;
                    } else {
                        log.insert(at, byte);
                    }
                }
            }
            // A long line.
            _ => {
                let at = random.below(log.len() + 1);
                let long = vec![b'x'; random.below(3 << 20)];
                log.splice(at..at, long);
            }
        }
    }
    log
}

fn builtin() -> &'static RuleSet {
    static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules"))
}

fn diagnose(rules: &RuleSet, reader: impl io::BufRead + Send) -> Diagnosis {
    let mut engine = Engine::new(rules);
    let _ = feed_source(&mut engine, "input.log", reader);
    engine.diagnose(&JudgeOptions::default())
}

/// Hands out its bytes `step` at a time, as a slow pipe would.
struct Trickle<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Unicode format characters that must never reach a terminal raw.
fn is_invisible(c: char) -> bool {
    c.is_control() && c != '\n'
        || matches!(c, '\u{ad}' | '\u{61c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{e0000}'..='\u{e007f}')
}

fn check_log(log: &[u8], step: usize) {
    let whole = diagnose(builtin(), log);
    let mut text = Vec::new();
    write_text(&mut text, &whole, &TextOptions { verbose: true, ..TextOptions::default() }).unwrap();
    let text = String::from_utf8(text).expect("text report is UTF-8");
    assert!(!text.chars().any(is_invisible), "raw control or format character in the text report");
    let mut json = Vec::new();
    write_json(&mut json, &whole).unwrap();
    serde_json::from_slice::<serde_json::Value>(&json).expect("JSON report parses");
    // The documented verdicts: no crash, crash (cause named or not), hung, degraded.
    assert!(matches!(whole.exit().code(), 0 | 1 | 3 | 5 | 6), "exit {}", whole.exit().code());
    let split = diagnose(builtin(), BufReader::with_capacity(step, Trickle { bytes: log, step }));
    assert!(whole == split, "the diagnosis changed with the read size {step}");
}

fn mutate_rule(texts: &[String], random: &mut Random) -> String {
    let mut text = random.pick(texts).clone();
    let inserts: [&str; 14] =
        ["*", "+", "{60}", "[ab]*", "(", ")", "|", "\\", "'", "\n", "a{1000}", ".*", "(?P<x>", "\u{0}"];
    for _ in 0..1 + random.below(4) {
        let mut at = random.below(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let insert: &&str = random.pick(&inserts[..]);
        text.insert_str(at, insert);
    }
    text
}

fn check_rule(text: &str, log: &[u8]) {
    match load_texts(&[("site/fuzzed.toml", text)]) {
        Ok(rules) => {
            let _ = diagnose(&rules, log);
        }
        Err(errors) => {
            for error in errors {
                assert!(error.to_string().starts_with("site/fuzzed.toml"), "{error}");
            }
        }
    }
}

fn keep_failure(kind: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = root().join("target/soak-failures");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{kind}-{}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
#[ignore = "runs for LOGDIAG_SOAK_SECONDS (default 60): a fuzzer, not a test"]
fn soak() {
    let seconds: u64 = std::env::var("LOGDIAG_SOAK_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let seed: u64 =
        std::env::var("LOGDIAG_SOAK_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        });
    eprintln!("soak: seed {seed}, {seconds} s");
    let mut random = Random(seed);
    let logs = seeds();
    let rules = rule_texts();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut inputs, mut rule_files) = (0u64, 0u64);
    while Instant::now() < deadline {
        let log = mutate(&logs, &mut random);
        let step = 1 + random.below(64);
        if std::panic::catch_unwind(|| check_log(&log, step)).is_err() {
            panic!("failing input kept in {}", keep_failure("log", &log).display());
        }
        inputs += 1;
        if inputs % 8 == 0 {
            let rule = mutate_rule(&rules, &mut random);
            let short = &log[..log.len().min(16 * 1024)];
            if std::panic::catch_unwind(|| check_rule(&rule, short)).is_err() {
                panic!("failing rule kept in {}", keep_failure("rule", rule.as_bytes()).display());
            }
            rule_files += 1;
        }
    }
    eprintln!("soak: {inputs} inputs and {rule_files} rule files, no finding");
}
