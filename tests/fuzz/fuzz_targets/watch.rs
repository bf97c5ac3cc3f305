//! Any bytes as a followed input (`logdiag watch`): read by the following
//! session, idle at chosen points (a line holding only 0x01), the watcher
//! judging at each idle moment with a clock that jumps ahead, so crash
//! graces and hangs are decided too.

#![no_main]

use std::io::{self, BufReader};
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use logdiag::engine::{Engine, JudgeOptions};
use logdiag::events::Event;
use logdiag::input::follow::{Chunks, Growing, Records};
use logdiag::pipeline::{Session, Sink};
use logdiag::rules::RuleSet;
use logdiag::watch::{Until, WatchOptions, Watcher};

fn rules() -> &'static RuleSet {
    static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules"))
}

/// The input's pieces, with an idle moment after each.
struct Pieces(Vec<Vec<u8>>, bool);

impl Chunks for Pieces {
    fn next_chunk(&mut self, buf: &mut [u8], wait: bool) -> io::Result<Option<usize>> {
        if std::mem::take(&mut self.1) && !wait {
            return Ok(None);
        }
        let Some(piece) = self.0.first_mut() else { return Ok(Some(0)) };
        let n = piece.len().min(buf.len());
        buf[..n].copy_from_slice(&piece[..n]);
        piece.drain(..n);
        if piece.is_empty() {
            self.0.remove(0);
            self.1 = true;
        }
        Ok(Some(n))
    }
}

struct Judge<'r> {
    engine: Engine<'r>,
    watcher: Watcher,
    now: Instant,
}

impl Sink for Judge<'_> {
    fn take(&mut self, event: Box<Event>) -> io::Result<()> {
        self.engine.take(event)
    }

    fn idle(&mut self, pending: Vec<Box<Event>>) -> io::Result<()> {
        let diagnosis = self.engine.diagnose_with(&pending, &JudgeOptions { latest: Some(2), ..JudgeOptions::default() });
        self.now += Duration::from_secs(7);
        let _ = self.watcher.update(&diagnosis, self.now);
        let _ = self.watcher.next_deadline(&diagnosis);
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let pieces: Vec<Vec<u8>> = data.split(|&b| b == 1).map(<[u8]>::to_vec).collect();
    let options = WatchOptions { until: Until::Exit, hang_after: Duration::from_secs(5), after_line: None };
    let mut engine = Engine::new(rules());
    engine.begin_source("followed.log");
    let now = Instant::now();
    let mut watcher = Watcher::new(options);
    let _ = watcher.start(&engine.diagnose(&JudgeOptions { latest: Some(2), ..JudgeOptions::default() }), now, now);
    let mut judge = Judge { engine, watcher, now };
    // Lines, as a followed log of text is read (not journal export paragraphs).
    let mut part = Growing::new(Pieces(pieces, false), |_: &[u8]| Records::Lines);
    let mut session = Session::following(&mut judge);
    let _ = session.read(BufReader::new(&mut part), None);
    session.finish().unwrap();
    let diagnosis = judge.engine.diagnose(&JudgeOptions { latest: Some(2), ..JudgeOptions::default() });
    let (_, code) = judge.watcher.end(&diagnosis, judge.now);
    assert!(matches!(code.code(), 0 | 1 | 3 | 4 | 5 | 6), "exit {}", code.code());
});
