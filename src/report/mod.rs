//! Reports: the diagnosis for people (text) and for scripts (JSON).
//!
//! Both render the same [`Diagnosis`]; only this module and the command
//! line write to the terminal. What the text report's headlines and its
//! runs' details share (its options, how many symptoms it shows, where a
//! run is) lives here.

mod details;
pub mod escape;
mod fit;
pub mod fleet;
mod history;
mod markdown;
mod paint;
mod terminal;
mod text;
mod vitals;
pub mod watch;

use std::io::{self, Write};

use crate::engine::diagnosis::{line_span, Outcome, Run};
use crate::engine::Diagnosis;
use escape::for_terminal;

pub use details::render_run;
pub use markdown::MarkdownOptions;
pub use terminal::{Color, ColorChoice, EvidenceLines, Terminal};

/// Symptoms shown without `-v`.
const SYMPTOMS_SHOWN: usize = 6;

/// What the text report shows, and how it fits where it goes.
#[derive(Debug, Clone, Default)]
pub struct TextOptions {
    /// Also show benign lines, every symptom, and every unit's runs.
    pub verbose: bool,
    /// Width, colour, and whether evidence lines are cut (default: a
    /// pipe's: whole lines, no colour).
    pub terminal: Terminal,
}

/// Writes the diagnosis as pretty JSON (deterministic, one document).
pub fn write_json(out: &mut dyn Write, diagnosis: &Diagnosis) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, diagnosis)?;
    out.write_all(b"\n")
}

/// The diagnosis as text.
pub fn render_text(diagnosis: &Diagnosis, options: &TextOptions) -> String {
    text::render(diagnosis, options)
}

/// The diagnosis as Markdown.
pub fn render_markdown(diagnosis: &Diagnosis, options: &MarkdownOptions) -> String {
    markdown::render(diagnosis, options)
}

/// Writes the diagnosis as text.
pub fn write_text(out: &mut dyn Write, diagnosis: &Diagnosis, options: &TextOptions) -> io::Result<()> {
    out.write_all(render_text(diagnosis, options).as_bytes())
}

/// Writes the diagnosis as Markdown, to paste into an issue.
pub fn write_markdown(
    out: &mut dyn Write,
    diagnosis: &Diagnosis,
    options: &MarkdownOptions,
) -> io::Result<()> {
    out.write_all(render_markdown(diagnosis, options).as_bytes())
}

/// Whether a run gets a section of its own below the headlines: it crashed,
/// hung or collapsed, reading it met a problem, or (`-v`) it has benign
/// lines to list.
fn worth_details(run: &Run, verbose: bool) -> bool {
    matches!(run.outcome, Outcome::Crash | Outcome::Hung)
        || run.degraded.is_some()
        || !run.notices.is_empty()
        || (verbose && !run.benign.is_empty())
}

/// `source:first-last`, where a run is.
fn place(run: &Run) -> String {
    let lines =
        line_span(run.first_line, run.last_line, run.last_source.as_deref(), |f| for_terminal(f).into());
    format!("{}:{lines}", for_terminal(&run.source))
}
