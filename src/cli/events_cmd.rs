//! `logdiag events PATH`: the parsed events as JSON lines, one object per
//! event, so rule authors see what the rules see, and which rules matched
//! each event (by the matcher the diagnosis uses).

use std::io::{self, Write};

use serde::Serialize;

use super::{load_rules, RuleArgs};
use crate::error::Error;
use crate::events::traceback::parse_frame;
use crate::events::{Event, EventKind, LineRole};
use crate::exit::Exit;
use crate::input::{collect_sources, open_logs, Symlinks};
use crate::pipeline::{read_parts, Borrowing, Framing, Parts};
use crate::rules::{LineMatch, MatchScratch, RuleSet};

#[derive(Serialize)]
struct FrameJson<'a> {
    file: &'a str,
    line: u32,
    function: &'a str,
}

#[derive(Serialize)]
struct LineJson<'a> {
    line: u64,
    role: &'static str,
    message: &'a str,
}

#[derive(Serialize)]
struct EventJson<'a> {
    source: &'a str,
    line: u64,
    last_line: u64,
    kind: &'static str,
    /// The ids of the rules that matched a line of it, in line order.
    rules: Vec<&'a str>,
    time: Option<&'a str>,
    host: Option<&'a str>,
    identifier: Option<&'a str>,
    unit: Option<&'a str>,
    pid: Option<u32>,
    process: Option<&'a str>,
    ranks: Option<&'a str>,
    level: Option<&'static str>,
    message: &'a str,
    exception: Option<&'a str>,
    frames: Vec<FrameJson<'a>>,
    lines: Vec<LineJson<'a>>,
}

pub(super) fn run(path: &str, rules: &RuleArgs, out: &mut dyn Write) -> Result<Exit, Error> {
    let rules = load_rules(rules)?;
    let mut matcher = Matcher { rules: &rules, scratch: MatchScratch::default(), matches: Vec::new() };
    let collected =
        collect_sources(&[path.to_string()], Symlinks::Skip).map_err(|e| Error::Input(e.to_string()))?;
    if let Some(e) = collected.without_logs.first() {
        return Err(Error::Input(e.to_string()));
    }
    for source in &collected.sources {
        let (parts, _not_logs) = open_logs(source).map_err(|e| Error::Input(e.to_string()))?;
        // The part loop the diagnosis reads with: what is printed is what
        // the rules see (a newest-first part in time order, a traceback
        // that goes on into the next file whole).
        let mut written = Ok(());
        let mut sink = Borrowing::new(|parts: &Parts, event: &Event| {
            let result = write_event(out, parts, event, &mut matcher);
            if let Err(e) = &result {
                written = Err(io::Error::new(e.kind(), e.to_string()));
            }
            result
        });
        let read = read_parts(&source.name, parts, &mut sink, Framing::ReadingThread)?;
        // Writing failed (a closed pipe): that is the command's failure,
        // not the input's.
        written?;
        if let Some(e) = read.error {
            return Err(Error::Input(format!("{}: {e}", source.name)));
        }
    }
    Ok(Exit::Healthy)
}

/// The diagnosis's rule matching, with its working memory.
struct Matcher<'r> {
    rules: &'r RuleSet,
    scratch: MatchScratch,
    matches: Vec<LineMatch>,
}

impl<'r> Matcher<'r> {
    /// The ids of the rules matching a line of `event`, each once, in
    /// the order of the lines they match.
    fn rules_matching(&mut self, event: &Event) -> Vec<&'r str> {
        self.matches.clear();
        self.rules.match_event(event, &mut self.scratch, &mut self.matches);
        let mut ids: Vec<&'r str> = Vec::new();
        for m in &self.matches {
            let id = self.rules.rule(m.rule).id.as_str();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        ids
    }
}

/// Writes `event` as a JSON line. Its lines are named by their files
/// and their numbers there: in a file read newest first, a later line has
/// a smaller number.
fn write_event(
    out: &mut dyn Write,
    parts: &Parts,
    event: &Event,
    matcher: &mut Matcher<'_>,
) -> std::io::Result<()> {
    let kind = match event.kind {
        EventKind::Record => "record",
        EventKind::Traceback => "traceback",
        EventKind::FaultDump => "fault-dump",
        EventKind::Separator(_) => "separator",
    };
    let exception = event.exception_lines().next().map(|l| l.message().trim());
    let frames = event
        .lines
        .iter()
        .filter(|l| l.role == LineRole::Frame)
        .filter_map(|l| parse_frame(l.message().trim()))
        .map(|f| FrameJson { file: f.file, line: f.line, function: f.function })
        .collect();
    let lines = event
        .lines
        .iter()
        .map(|l| LineJson { line: parts.locate(l.number).1, role: role_name(l.role), message: l.message() })
        .collect();
    let (source, line) = parts.locate(event.first_line());
    let json = EventJson {
        source,
        line,
        last_line: parts.locate(event.last_line()).1,
        kind,
        rules: matcher.rules_matching(event),
        time: event.time(),
        host: event.host(),
        identifier: event.identifier(),
        unit: event.unit(),
        pid: event.stream.pid,
        process: event.process(),
        ranks: event.ranks(),
        level: event.lines.first().and_then(|l| l.level).map(|l| l.name()),
        message: event.lines.first().map_or("", |l| l.message()),
        exception,
        frames,
        lines,
    };
    serde_json::to_writer(&mut *out, &json)?;
    out.write_all(b"\n")
}

fn role_name(role: LineRole) -> &'static str {
    match role {
        LineRole::Text => "text",
        LineRole::TracebackHeader => "traceback-header",
        LineRole::Frame => "frame",
        LineRole::Source => "source",
        LineRole::Exception => "exception",
        LineRole::ExceptionText => "exception-text",
        LineRole::Chain => "chain",
        LineRole::Blank => "blank",
    }
}
