//! Why a command could not finish. Each kind is one [`Error`] variant; the
//! command line maps every one of them to its exit code in one place
//! (`cli::run`), and prints it on one line.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::exit::Exit;

/// A command's failure.
#[derive(Debug)]
pub enum Error {
    /// The command line asks for something that cannot be done: a bad
    /// value, no input on a terminal, a selection that matches nothing.
    Usage(String),
    /// An input cannot be read, or holds no log.
    Input(String),
    /// The rule files have problems, each said already on stderr, where
    /// it was found.
    Rules {
        /// How many.
        problems: usize,
    },
    /// Writing the report failed (a closed pipe ends the command quietly).
    Output(io::Error),
    /// A file the command writes cannot be written.
    Written {
        /// The file.
        path: PathBuf,
        /// What it is (the JUnit report).
        what: &'static str,
        /// Why it cannot be written.
        error: io::Error,
    },
}

impl Error {
    /// How the command ends: a closed output pipe (`| head`) is no
    /// failure of the command, whose own exit stands.
    pub fn exit(&self) -> Option<Exit> {
        match self {
            Error::Output(e) if is_closed_pipe(e) => None,
            Error::Usage(_)
            | Error::Input(_)
            | Error::Rules { .. }
            | Error::Output(_)
            | Error::Written { .. } => Some(Exit::Error),
        }
    }
}

/// The reader of our output went away (`| head`).
pub fn is_closed_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(message) | Error::Input(message) => f.write_str(message),
            Error::Rules { problems } => write!(f, "{problems} problem(s) in rule files; no diagnosis made"),
            Error::Output(e) => write!(f, "cannot write output: {e}"),
            Error::Written { path, what, error } => {
                write!(f, "{}: cannot write {what}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Output(e)
    }
}
