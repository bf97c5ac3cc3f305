//! `logdiag completions SHELL` and `logdiag man`: a shell completion script
//! and the man page, both generated from the same clap definitions as
//! `--help`, so they never fall behind the flags.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;
use crate::error::Error;
use crate::exit::Exit;

/// The name the scripts and the page are written for.
const BIN_NAME: &str = "logdiag";

/// Writes the completion script for `shell`.
pub(super) fn completions(shell: Shell, out: &mut dyn Write) -> Result<Exit, Error> {
    let mut command = Cli::command();
    // clap_complete writes through `impl Write`; catch its output to keep
    // the dispatcher's handling of write errors (a closed pipe is quiet).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, BIN_NAME, &mut script);
    out.write_all(&script)?;
    Ok(Exit::Healthy)
}

/// Writes the man page (roff) of `logdiag`, or of one of its subcommands
/// (`logdiag-watch`).
pub(super) fn man(subcommand: Option<&str>, out: &mut dyn Write) -> Result<Exit, Error> {
    let mut command = Cli::command().name(BIN_NAME);
    // Building names each subcommand as its page is named (`logdiag-watch`)
    // and its usage as it is typed (`logdiag watch`).
    command.build();
    let page = match subcommand {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
                return Err(Error::Usage(format!(
                    "no command named '{name}' (one of: {})",
                    names.join(", ")
                )));
            }
        },
    };
    // Every page's footer names the program and its version.
    let source = format!("{BIN_NAME} {}", env!("CARGO_PKG_VERSION"));
    clap_mangen::Man::new(page).source(source).render(out)?;
    Ok(Exit::Healthy)
}
