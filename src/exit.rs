//! The exit codes, one list for every command: what a diagnosis, a watch
//! and a failure end with. A script reads the code before any report, so
//! each means one thing everywhere; the README's two tables (batch and
//! watch) list the same codes, and a test holds them to this list.

use std::fmt;

/// How logdiag ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exit {
    /// Nothing crashed, hung or collapsed in the current launch; for a
    /// watch, the awaited state was reached.
    Healthy,
    /// A crash, its root cause identified.
    Crashed,
    /// An error: usage, unreadable input, invalid rule files.
    Error,
    /// A crash whose root cause is not identified (`unknown`, or a
    /// stand-in such as a SIGKILL whose sender the log does not show).
    CrashedUnexplained,
    /// A watch's input ended, or its launch stopped, before the awaited
    /// state.
    EndedFirst,
    /// No crash, but a run hung.
    Hung,
    /// No crash or hang, but a run's speed collapsed.
    Degraded,
    /// A watch's `--timeout` passed first.
    Timeout,
    /// `logdiag test`: a case failed (its code is a crash's, as a failed
    /// check's is in most tools; `logdiag test` judges no log).
    CasesFailed,
}

impl Exit {
    /// Every exit, in the order of their codes (`logdiag test`'s own
    /// last).
    pub const ALL: [Exit; 9] = [
        Exit::Healthy,
        Exit::Crashed,
        Exit::Error,
        Exit::CrashedUnexplained,
        Exit::EndedFirst,
        Exit::Hung,
        Exit::Degraded,
        Exit::Timeout,
        Exit::CasesFailed,
    ];

    /// The process exit code.
    pub fn code(self) -> i32 {
        match self {
            Exit::Healthy => 0,
            Exit::Crashed | Exit::CasesFailed => 1,
            Exit::Error => 2,
            Exit::CrashedUnexplained => 3,
            Exit::EndedFirst => 4,
            Exit::Hung => 5,
            Exit::Degraded => 6,
            // What timeout(1) exits with.
            Exit::Timeout => 124,
        }
    }

    /// Whether a diagnosis of a whole log (`logdiag PATH`) can end so.
    pub fn ends_a_diagnosis(self) -> bool {
        !matches!(self, Exit::EndedFirst | Exit::Timeout | Exit::CasesFailed)
    }

    /// Whether `logdiag watch` can end so.
    pub fn ends_a_watch(self) -> bool {
        self != Exit::CasesFailed
    }

    /// The exit of a crash: whether its root cause is identified.
    pub fn of_crash(identified: bool) -> Exit {
        match identified {
            true => Exit::Crashed,
            false => Exit::CrashedUnexplained,
        }
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exit_of_a_diagnosis_or_a_watch_has_a_code_of_its_own() {
        for ends in [Exit::ends_a_diagnosis, Exit::ends_a_watch] {
            let codes: Vec<i32> = Exit::ALL.iter().filter(|e| ends(**e)).map(|e| e.code()).collect();
            assert!(codes.windows(2).all(|w| w[0] < w[1]), "in code order, each once: {codes:?}");
        }
    }
}
