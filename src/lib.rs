//! logdiag: crash forensics for GPU inference servers.
//!
//! The pipeline, one module per arrow:
//!
//! ```text
//! bytes → lines → records → events → findings → runs → diagnosis → report
//!  input   input   framing   events    engine    engine   engine     report
//!                                 ↘ progress lines → vitals ↗
//!                                           vitals (read by engine, report)
//! ```
//!
//! The engine is pure (news in, diagnosis out) and incremental; reading
//! files and streams is [`input`]'s and [`pipeline`]'s, writing reports
//! [`report`]'s, and the command line ([`cli`]) only parses arguments and
//! sends each result where it goes. [`pipeline`] drives a source through
//! framing and grouping and hands its news (parts, events, notices) to a
//! sink in input order; [`diagnose`] makes the engine that sink, for one
//! source or many read at once. [`vitals`] reads the servers' progress
//! lines (speed, load, queue) that the engine routes to each run, and
//! judges collapses; the engine judges hangs with them, and the report
//! draws them. [`watch`] follows a growing log and reports the current
//! launch's state as it changes. [`corpus`] checks golden cases. Every
//! command ends with an [`exit::Exit`], or fails with an [`error::Error`].
//!
//! Diagnosing a log held in a string:
//!
//! ```
//! use logdiag::diagnose::feed_source;
//! use logdiag::engine::{Engine, JudgeOptions};
//! use logdiag::exit::Exit;
//! use logdiag::rules::RuleSet;
//!
//! let log = "\
//! May 25 20:27:20 gpu01 systemd[1]: Started sglang.service - SGLang server.
//! May 25 20:27:24 gpu01 python3[4711]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB
//! May 25 20:27:25 gpu01 systemd[1]: sglang.service: Main process exited, code=exited, status=1/FAILURE
//! ";
//! let rules = RuleSet::builtin().expect("the built-in rules load");
//! let mut engine = Engine::new(&rules);
//! feed_source(&mut engine, "journal.log", log.as_bytes()).expect("a string can be read");
//! let diagnosis = engine.diagnose(&JudgeOptions::default());
//! let cause = diagnosis.root_cause.as_ref().expect("a crash has a cause");
//! assert_eq!(cause.category.name(), "cuda-oom");
//! assert_eq!(cause.evidence[0].line, 2);
//! assert_eq!(diagnosis.exit(), Exit::Crashed);
//! ```

#![warn(missing_docs, unreachable_pub)]

pub mod cli;
pub mod corpus;
pub mod diagnose;
pub mod engine;
pub mod error;
pub mod events;
pub mod exit;
pub mod fleet;
pub mod framing;
pub mod input;
pub mod metrics;
pub mod named;
pub mod notice;
pub mod pipeline;
pub mod report;
pub mod rules;
pub mod vitals;
pub mod watch;
