//! "Did you mean watch?": a first PATH that is no file but is spelt like a
//! subcommand.
//!
//! clap takes the first positional argument as a subcommand only when it
//! names one exactly; anything else is a PATH to diagnose. So a mistyped
//! `logdiag wacth x.log` would be read as a file named `wacth`, and fail as
//! a missing file. When no file of that name exists and it is close to a
//! subcommand's name, say so instead. A file that does exist is always
//! diagnosed, whatever its name.

use std::path::Path;

use clap::CommandFactory;

use super::Cli;

/// The message for a first PATH that does not exist and looks like a
/// mistyped subcommand, or `None` when it should be read as a PATH.
pub(super) fn misspelt_command(paths: &[String]) -> Option<String> {
    let typed = paths.first()?;
    if !looks_like_a_command(typed) || Path::new(typed).symlink_metadata().is_ok() {
        return None;
    }
    let command = Cli::command();
    let names = command.get_subcommands().map(|c| c.get_name().to_string());
    let closest = closest_name(typed, names)?;
    Some(format!("'{typed}' is neither a file nor a command; did you mean {closest}?"))
}

/// The message for a command named after an option (`logdiag --format json
/// rules list`): clap then reads the command's name and what follows as
/// PATHs. Said when one of them is no file; when all are files, they are
/// diagnosed.
pub(super) fn command_after_option(paths: &[String]) -> Option<String> {
    let typed = paths.first()?;
    let command = Cli::command();
    let is_command = command.get_subcommands().any(|c| c.get_name() == typed);
    let missing = paths.iter().any(|p| p != "-" && Path::new(p).symlink_metadata().is_err());
    (is_command && missing).then(|| {
        format!("'{typed}' is a command, but an option came before it: put the options after it (logdiag {typed} [OPTIONS] …)")
    })
}

/// A bare word: no path separator, no extension, no option.
fn looks_like_a_command(typed: &str) -> bool {
    !typed.is_empty()
        && typed.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !typed.starts_with('-')
}

/// The subcommand name closest to `typed`, whatever its case (see
/// [`crate::named::closest`]).
fn closest_name(typed: &str, names: impl Iterator<Item = String>) -> Option<String> {
    let names: Vec<String> = names.collect();
    crate::named::closest(&typed.to_ascii_lowercase(), names.iter().map(String::as_str)).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closest(typed: &str) -> Option<String> {
        closest_name(
            typed,
            ["rules", "test", "watch", "events", "completions", "man"].map(String::from).into_iter(),
        )
    }

    #[test]
    fn near_names_are_suggested() {
        assert_eq!(closest("wacth").as_deref(), Some("watch"));
        assert_eq!(closest("WATHC").as_deref(), Some("watch"));
        assert_eq!(closest("rule").as_deref(), Some("rules"));
        assert_eq!(closest("completion").as_deref(), Some("completions"));
        assert_eq!(closest("mna").as_deref(), Some("man"));
    }

    #[test]
    fn far_names_and_paths_are_not() {
        assert_eq!(closest("sglang"), None);
        assert_eq!(closest("watchdog"), None);
        assert!(!looks_like_a_command("wacth.log"));
        assert!(!looks_like_a_command("logs/wacth"));
        assert!(!looks_like_a_command("-"));
    }
}
