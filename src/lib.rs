//! logdiag: crash forensics for GPU inference servers.
//!
//! The pipeline, one module per arrow:
//!
//! ```text
//! bytes → lines → records → events → findings → runs → diagnosis → report
//!  input   input   framing   events    engine    engine   engine     report
//! ```
//!
//! Only [`input`], [`report`] and the command line do I/O; the engine is
//! pure (events in, diagnosis out) and incremental.

pub mod events;
pub mod framing;
pub mod input;
