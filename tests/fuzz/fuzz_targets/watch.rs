//! Any bytes as a followed stream (`logdiag watch`): lines pushed one by
//! one, quiet periods at chosen points, a judgement after each step.

#![no_main]

use libfuzzer_sys::fuzz_target;
use logdiag::engine::{Engine, JudgeOptions};
use logdiag::events::Event;
use logdiag::pipeline::{Borrowing, Session};
use logdiag::rules::RuleSet;
use logdiag::watch::{Until, Watcher};

fn rules() -> &'static RuleSet {
    static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules"))
}

fuzz_target!(|data: &[u8]| {
    let mut engine = Engine::new(rules());
    engine.begin_source("followed.log");
    let mut watcher = Watcher::new(Until::Never);
    let mut events: Vec<Event> = Vec::new();
    let mut sink = Borrowing::new(|event: &Event| {
        events.push(event.clone());
        Ok(())
    });
    let mut session = Session::new(&mut sink);
    let mut started = false;
    // A line holding only 0x01 stands for a quiet period.
    for line in data.split(|&b| b == b'\n') {
        if line == [1] {
            session.flush().unwrap();
        } else {
            session.push_line(line).unwrap();
        }
    }
    session.flush().unwrap();
    drop(session);
    drop(sink);
    for event in &events {
        engine.feed(event);
        let diagnosis = engine.diagnose(JudgeOptions { latest: Some(1) });
        let _ = if started { watcher.update(&diagnosis) } else { watcher.start(&diagnosis) };
        started = true;
    }
    let diagnosis = engine.diagnose(JudgeOptions { latest: Some(1) });
    assert!(matches!(watcher.ended(&diagnosis), 0..=4));
});
