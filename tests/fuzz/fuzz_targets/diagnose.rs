//! Any bytes through the whole pipeline (input → framing → events →
//! engine → report), checking what must hold for every input: no panic,
//! the text report carries no raw control character, the JSON report is
//! valid, and the diagnosis does not depend on how reads are split.

#![no_main]

use std::io::{self, BufReader, Read};

use libfuzzer_sys::fuzz_target;
use logdiag::engine::{Diagnosis, Engine, JudgeOptions};
use logdiag::diagnose::feed_source;
use logdiag::report::{write_json, write_text, TextOptions};
use logdiag::rules::RuleSet;

fn rules() -> &'static RuleSet {
    static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules"))
}

fn diagnose(reader: impl io::BufRead + Send, options: JudgeOptions) -> Diagnosis {
    let mut engine = Engine::new(rules());
    let _ = feed_source(&mut engine, "input.log", reader);
    engine.diagnose(&options)
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

fuzz_target!(|data: &[u8]| {
    let Some((&step, log)) = data.split_first() else { return };
    let whole = diagnose(log, JudgeOptions::default());

    let mut text = Vec::new();
    write_text(&mut text, &whole, &TextOptions { verbose: true, ..TextOptions::default() }).unwrap();
    let text = String::from_utf8(text).expect("text report is UTF-8");
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "raw control character in the text report");
    let mut json = Vec::new();
    write_json(&mut json, &whole).unwrap();
    serde_json::from_slice::<serde_json::Value>(&json).expect("JSON report parses");
    assert!(matches!(whole.exit().code(), 0 | 1 | 3 | 5 | 6), "exit {}", whole.exit().code());

    let step = usize::from(step % 64) + 1;
    let split =
        diagnose(BufReader::with_capacity(step, Trickle { bytes: log, step }), JudgeOptions::default());
    assert!(whole == split, "the diagnosis changed with the read size {step}");

    let _ = diagnose(log, JudgeOptions { latest: Some(1), ..JudgeOptions::default() });
});
