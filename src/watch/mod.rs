//! Watching a log: the state of the current launch, reported as it
//! changes, and when to stop (`logdiag watch --until …`). The
//! [`Watcher`] is pure: diagnoses and times in, changes and decisions
//! out. [`follow`] runs the watch: it takes a followed input's news
//! from its reading thread into the engine, judges when the reader has
//! caught up and as lines come, and hands each change to its caller as
//! a [`Record`] (the command line prints them with
//! [`crate::report::watch`]).
//!
//! - **The current launch** is the latest run in the log, whenever its
//!   lines were written: a launch that crashed before watching began is
//!   decided at once. Earlier runs are history; the one just before the
//!   current one is reported once, marked as such. When the caller knows
//!   where the launch began (`--after-line N`), the runs up to line N are
//!   history, and until a line after N comes there is no current launch.
//! - **Readiness is proven, never assumed**: `ready` needs a line showing
//!   that a generation completed (the run's `ready` evidence); a server
//!   that is up or answers requests is `listening`. After the proof, more
//!   progress is `serving`.
//! - **A crash** with evidence of death (high confidence: a cause and then
//!   a kill, an exit, a sigquit) is decided at once. A weaker one (a
//!   failure with no sign yet that the process died, a lone symptom) waits
//!   [`CRASH_GRACE`] from when its lines were written: if the run makes
//!   progress meanwhile, it survived.
//! - **A hang**: the last progress line reported requests running or
//!   waiting, and no progress line has come for the hang time: wall time,
//!   for lines written while watching (the log's printed clock may jump),
//!   and the printed clock only for what the log held before. A new
//!   progress line retracts it.
//! - **A collapse** (`degraded`): the engine's judgement of the run's speed
//!   ([`crate::engine`]'s `degraded`), as soon as it has enough progress
//!   lines to make it; `--until ready` ends on it with [`Exit::Degraded`](crate::exit::Exit::Degraded).

mod follower;
mod watcher;
mod watchers;

pub use follower::{follow, EndReason, FileChange, Following, Record};
pub use watcher::{state_of, Change, State, Until, WatchOptions, Watcher, CRASH_GRACE};
