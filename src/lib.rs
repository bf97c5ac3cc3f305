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
//! Only [`input`], [`report`] and the command line ([`cli`]) do I/O; the
//! engine is pure (events in, diagnosis out) and incremental. [`vitals`]
//! reads the servers' progress lines (speed, load, queue) that the engine
//! routes to each run, and judges collapses; the engine judges hangs with
//! them, and the report draws them.
//! [`pipeline`] drives a source through framing and grouping into events;
//! [`diagnose`] connects it to the engine (each event judged as it is
//! grouped); [`corpus`] checks golden cases.

pub mod cli;
pub mod corpus;
pub mod diagnose;
pub mod engine;
pub mod error;
pub mod events;
pub mod exit;
pub mod framing;
pub mod input;
pub mod named;
pub mod notice;
pub mod pipeline;
pub mod report;
pub mod rules;
pub mod vitals;
pub mod watch;
