//! Reports: the diagnosis for people (text) and for scripts (JSON).
//!
//! Both render the same [`Diagnosis`]; only this module and the command
//! line write to the terminal.

pub mod escape;
mod text;
mod vitals;

use std::io::{self, Write};

use crate::engine::Diagnosis;

pub use text::{render_run, TextOptions};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// For people.
    Text,
    /// For scripts: the schema-1 JSON contract.
    Json,
}

/// Writes the diagnosis as pretty JSON (deterministic, one document).
pub fn write_json(out: &mut dyn Write, diagnosis: &Diagnosis) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, diagnosis)?;
    out.write_all(b"\n")
}

/// Writes the diagnosis as text.
pub fn write_text(out: &mut dyn Write, diagnosis: &Diagnosis, options: &TextOptions) -> io::Result<()> {
    out.write_all(text::render(diagnosis, options).as_bytes())
}
