//! How code handled a traceback's exception, read from how it was
//! printed: caught and logged, announced in the catcher's own words,
//! called fatal, retried, or left to reach the program's top level.

use super::liveness;
use crate::events::{Event, EventKind, LineRole};
use crate::framing::Level;

/// Did the traceback's exception propagate to the program's top level (an
/// outermost frame of the main script's `<module>`, or of `python -m`'s
/// `_run_module_as_main`)? Then nothing caught it: no logger printed it as
/// a warning.
pub(super) fn reaches_top_level(event: &Event) -> bool {
    if event.kind != EventKind::Traceback {
        return false;
    }
    outermost_frames(event).any(|f| matches!(f.function, "<module>" | "_run_module_as_main"))
}

/// Was the traceback's exception raised in a thread other than the main
/// one: the outermost frame of its last traceback is where `threading`
/// starts a thread (`threading.py … in _bootstrap`)? A thread's exception
/// does not end the process by itself (`threading.excepthook` prints it
/// and the thread ends).
pub(super) fn raised_in_a_thread(event: &Event) -> bool {
    event.kind == EventKind::Traceback
        && !reaches_top_level(event)
        && outermost_frames(event)
            .last()
            .is_some_and(|f| f.file.ends_with("threading.py") && f.function.starts_with("_bootstrap"))
}

/// The outermost frame of each traceback of the event's chain (the first
/// after its header): a `<module>` frame deeper down is an import's.
fn outermost_frames(event: &Event) -> impl Iterator<Item = crate::events::traceback::Frame<'_>> {
    let mut outermost_next = true;
    event.lines.iter().filter_map(move |l| match l.role {
        LineRole::TracebackHeader => {
            outermost_next = true;
            None
        }
        LineRole::Frame if outermost_next => {
            outermost_next = false;
            crate::events::traceback::parse_frame(l.message().trim())
        }
        _ => None,
    })
}

/// How code handled a traceback's exception, by how it was printed, and
/// whether the writer says it tries again.
#[derive(Clone, Copy)]
pub(super) struct Handling {
    /// Code caught and logged it (see [`is_caught`]), and it did not reach
    /// the program's top level.
    pub(super) caught: bool,
    /// And announced it in words of its own (see [`is_announced`]).
    pub(super) announced: bool,
    /// The event's last line says its writer tries again (`…,
    /// retrying... (attempt 9/60)`): an error it goes on from, like a
    /// warning.
    pub(super) retried: bool,
}

impl Handling {
    /// `announced_apart`: an error record of the same writer a line or two
    /// above the traceback, not grouped with it, announced it.
    pub(super) fn of(event: &Event, announced_apart: bool) -> Handling {
        let below_top = event.kind == EventKind::Traceback && !reaches_top_level(event);
        Handling {
            caught: below_top && (announced_apart || is_caught(event)),
            announced: below_top && (announced_apart || is_announced(event)),
            // Its last words: an event may hold an earlier error too.
            retried: event.lines.iter().rev().find(|l| !l.message().trim().is_empty()).is_some_and(|l| {
                matches!(l.role, LineRole::Text | LineRole::Exception | LineRole::ExceptionText)
                    && liveness::says_it_retries(l.message())
            }),
        }
    }
}

/// Was the traceback logged by code that caught its exception: an error
/// record opened it (`logger.exception("Error during inference")`), or its
/// header carries a logger's level? Not when the catcher's own words call
/// it fatal (`EngineCore encountered a fatal error.`); the caller rules
/// out one that reached the program's top level.
fn is_caught(event: &Event) -> bool {
    let Some(header) = event.lines.iter().position(|l| l.role == LineRole::TracebackHeader) else {
        return false;
    };
    event.kind == EventKind::Traceback
        && !announced_as_fatal(event)
        && (is_announced(event) || logged(event.lines[header].level))
}

/// Was the traceback opened by a logger's record with words of its own
/// (`logger.exception("Failed to load the model.")`), not only by a
/// header that carries a level (`ERROR:    Traceback …`, a traceback's
/// text logged as the message)? Not when those words call it fatal.
fn is_announced(event: &Event) -> bool {
    let header = event.lines.iter().position(|l| l.role == LineRole::TracebackHeader);
    let first = &event.lines[0];
    let opened = header.is_some_and(|h| h > 0) && first.role == LineRole::Text && logged(first.level);
    event.kind == EventKind::Traceback && opened && !announced_as_fatal(event)
}

/// Does the record that opened the traceback call it fatal, say that
/// what failed ends (`Exception in Replica(…), the replica will be
/// stopped.`), or that it could not start (`EngineCore failed to start.`)?
fn announced_as_fatal(event: &Event) -> bool {
    says_it_ends(event.lines[0].message())
}

/// Words that call a failure fatal or say that what failed ends.
const ENDING: [&str; 22] = [
    "fatal",
    "failed to start",
    "failed to initialize",
    "failed to initialise",
    "failed to launch",
    "failed to boot",
    "startup failed",
    "start-up failed",
    "initialization failed",
    "will be stopped",
    "will be killed",
    "will be terminated",
    "will exit",
    "will terminate",
    "will now exit",
    "shutting down",
    "terminating",
    "exiting",
    "aborting",
    "giving up",
    // The handler of sglang's scheduler (`Scheduler hit an exception:`)
    // and of vLLM's worker loop (`WorkerProc hit an exception.`): the
    // scheduler then ends the server; the worker hands the error to the
    // engine core, which ends.
    "hit an exception",
    // gunicorn's worker (`arbiter.py`, spawn_worker) logs this, then exits.
    "exception in worker process",
];

/// Do these words call a failure fatal, or say that what failed ends or
/// could not start (see [`announced_as_fatal`])?
/// Every error record asks, so one automaton, ASCII case-insensitive,
/// and no copy of the message.
pub(super) fn says_it_ends(announcement: &str) -> bool {
    static WORDS: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(ENDING)
            .expect("a few plain words make an automaton")
    });
    // `Non-fatal error in session processor` (InvokeAI) says the opposite.
    let negated = |start: usize| {
        let before = announcement.get(start.saturating_sub(4)..start).unwrap_or("");
        before.eq_ignore_ascii_case("non-") || before.eq_ignore_ascii_case("not ")
    };
    words
        .find_overlapping_iter(announcement)
        .any(|m| ENDING[m.pattern().as_usize()] != "fatal" || !negated(m.start()))
}

fn logged(level: Option<Level>) -> bool {
    level.is_some_and(Level::is_trouble)
}
