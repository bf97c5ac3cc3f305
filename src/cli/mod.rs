//! The command line: parse arguments once, then dispatch to a command.
//!
//! Exit codes (the same in text and JSON modes): 0 no crash, 1 crash with
//! its root cause identified, 3 crash with no identified root cause, 2 an
//! error (usage, unreadable input, invalid rules). An internal error is 2,
//! never 0. A closed output pipe (`logdiag x | head -1`) ends quietly.

mod corpus_cmd;
mod diagnose;
mod draft;
mod events_cmd;
mod fleet_cmd;
mod generate;
mod junit;
mod rules_cmd;
mod suggest;
mod watch;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::error::{is_closed_pipe, Error};
use crate::exit::Exit;
use crate::report::escape::for_terminal_lines;
use crate::rules::{LoadOptions, RuleSet};

#[derive(Parser, Debug)]
#[command(
    name = "logdiag",
    version,
    about = "Find why a GPU inference server crashed: reads sglang, vLLM, journal and kernel logs and names the root cause with its evidence lines.",
    after_help = "Exit codes (of each unit's current launch; --any-launch: of any): 0 no crash, 1 crash with root cause identified, 3 crash with root cause not identified, 5 hung (no crash), 6 degraded (speed collapsed; no crash, no hang), 2 error.\n\nExamples:\n  journalctl -u sglang.service | logdiag -\n  logdiag sglang-server.log\n  logdiag --format json --last /var/log/sglang/",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    diagnose: DiagnoseArgs,
}

#[derive(Args, Debug, Clone)]
struct RuleArgs {
    /// Add the rule files in DIR (repeatable).
    #[arg(long = "rules", value_name = "DIR", global = true)]
    rules: Vec<PathBuf>,
    /// Do not load the built-in rules.
    #[arg(long, global = true)]
    no_default_rules: bool,
}

#[derive(Args, Debug, Clone)]
struct DiagnoseArgs {
    /// Files, directories (walked) or - for stdin. With none, reads stdin
    /// when it is not a terminal.
    #[arg(value_name = "PATH")]
    paths: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
    /// Judge only the latest run of each source (of each unit, in a
    /// journal of several).
    #[arg(long)]
    last: bool,
    /// Let every launch decide the verdict: a crash in an earlier launch
    /// fails the run too (by default each unit's current launch decides,
    /// and earlier ones are history).
    #[arg(long, conflicts_with = "last")]
    any_launch: bool,
    /// Judge only this unit, pod or container (repeatable; globs as
    /// journalctl -u takes them: `sglang` is sglang.service).
    #[arg(long = "unit", short = 'u', value_name = "NAME", value_parser = unit_pattern)]
    units: Vec<String>,
    /// Also show every symptom, the benign lines and why, and every unit.
    #[arg(short, long)]
    verbose: bool,
    /// Follow symbolic links when walking a directory (a link named on
    /// the command line is always read).
    #[arg(short = 'L', long)]
    follow: bool,
    /// Read at most this many files at once [default: the number of
    /// cores, at most 4].
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// When to colour the text report: auto (on a terminal, unless
    /// NO_COLOR is set), always (even in a pipe), never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    /// A run is degraded when its generation speed per running request is
    /// below this share of an earlier run's at comparable load.
    #[arg(long, value_name = "SHARE", default_value_t = crate::engine::DEGRADED_BELOW, value_parser = share)]
    degraded_below: f64,
    /// A run whose last progress line showed requests running or waiting
    /// is hung when its log goes on this long without progress (by the
    /// log's time stamps) [default: 10m].
    #[arg(long, value_name = "DUR")]
    hang_after: Option<String>,
    #[command(flatten)]
    rules: RuleArgs,
}

impl DiagnoseArgs {
    /// Whether walks follow symbolic links (`-L`).
    fn symlinks(&self) -> crate::input::Symlinks {
        if self.follow {
            crate::input::Symlinks::Follow
        } else {
            crate::input::Symlinks::Skip
        }
    }
}

/// A share between 0 and 1.
/// A `--unit` pattern: an empty one would name no unit, and judge nothing.
fn unit_pattern(text: &str) -> Result<String, String> {
    match text.trim().is_empty() {
        true => {
            Err("an empty unit name matches no unit (give a name or a glob: sglang, 'vllm*')".to_string())
        }
        false => Ok(text.to_string()),
    }
}

fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(share) if (0.0..=1.0).contains(&share) => Ok(share),
        _ => Err(format!("'{text}' is not a share between 0 and 1 (e.g. 0.5)")),
    }
}

/// Reads a duration: `30s`, `5m`, `1h`, `250ms`, `1d`, several of them
/// (`1h30m`, `2m 30s`), or plain seconds.
pub(crate) fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let invalid = || format!("invalid duration '{text}' (use 30s, 5m, 1h30m, 250ms)");
    let text = text.trim();
    let mut rest = text;
    let mut seconds = 0.0;
    let mut parts = 0;
    while !rest.is_empty() || parts == 0 {
        let number_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let value: f64 = rest[..number_end].parse().map_err(|_| invalid())?;
        rest = &rest[number_end..];
        let unit_end = rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(rest.len());
        let unit = &rest[..unit_end];
        rest = rest[unit_end..].trim_start();
        parts += 1;
        seconds += value
            * match unit {
                // A bare number is seconds, alone.
                "" if parts == 1 && rest.is_empty() => 1.0,
                "ms" => 0.001,
                "s" | "sec" => 1.0,
                "m" | "min" => 60.0,
                "h" => 3600.0,
                "d" => 86_400.0,
                _ => return Err(invalid()),
            };
    }
    if !seconds.is_finite() || !(0.0..=1e9).contains(&seconds) {
        return Err(format!("invalid duration '{text}'"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum OutputFormat {
    /// For people.
    Text,
    /// For scripts (schema 3).
    Json,
}

/// `--color WHEN`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum ColorWhen {
    /// On a terminal, unless NO_COLOR is set to something.
    Auto,
    /// Even in a pipe.
    Always,
    /// Never.
    Never,
}

impl From<ColorWhen> for crate::report::ColorChoice {
    fn from(when: ColorWhen) -> Self {
        match when {
            ColorWhen::Auto => Self::Auto,
            ColorWhen::Always => Self::Always,
            ColorWhen::Never => Self::Never,
        }
    }
}

/// The formats of a diagnosis report (`watch` has its own: no markdown).
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum ReportFormat {
    /// For people.
    Text,
    /// For scripts (schema 3).
    Json,
    /// To paste into a GitHub issue.
    Markdown,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List, check or explain rules.
    Rules {
        #[command(subcommand)]
        action: RulesAction,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Run a corpus of cases (input.log, case.json, expected.json).
    Test {
        /// A folder of case folders, or one case folder.
        dir: PathBuf,
        /// Write expected.json for every case whose labels pass.
        #[arg(long)]
        bless: bool,
        /// Also write the results as a JUnit XML file, for CI systems.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Follow a growing log (or a stream) and report each state change of
    /// the current launch: starting, loading weights, capturing CUDA
    /// graphs, autotuning, listening, ready, serving, hung, stopped,
    /// crashed.
    #[command(
        long_about = "Follow a growing log (or a stream) and report each state change of the current launch.\n\nThe current launch is the latest one in the log, whenever its lines were written: the log is read from its start, and a launch that already crashed, stopped or became ready is decided at once. Earlier launches are history. It is `ready` only on a line that proves a generation completed (sglang's warm-up, a decode batch or vLLM stats line with generated tokens, a TGI `Success`, llama.cpp timings); a server that listens or answers requests is `listening`."
    )]
    Watch(WatchArgs),
    /// Judge many hosts' logs at once (a folder of per-host files or
    /// folders): each host's verdict, and the hosts grouped by what
    /// happened to them.
    Fleet {
        /// Folders whose files (or subfolders) are hosts, or host files.
        #[arg(required = true)]
        paths: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
        /// A host is slow when its generation speed per running request is
        /// below this share of the hosts launched the same way, at
        /// comparable load.
        #[arg(long, value_name = "SHARE", default_value_t = crate::engine::DEGRADED_BELOW, value_parser = share)]
        degraded_below: f64,
        /// Read at most this many files at once [default: the number of
        /// cores, at most 4].
        #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Print the parsed events of a log as JSON lines (for rule authors).
    Events {
        /// A file, or - for stdin.
        path: String,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Print a shell completion script (e.g. `logdiag completions bash >
    /// /etc/bash_completion.d/logdiag`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `logdiag man > logdiag.1`, or a
    /// subcommand's (`logdiag man watch > logdiag-watch.1`).
    Man {
        /// The subcommand whose page to print.
        command: Option<String>,
    },
}

#[derive(Args, Debug)]
#[command(
    after_help = "--until:\n  ready  exit 0 when the launch is ready (a generation completed); 1/3 if it crashes first, 5 if it hangs, 4 if it stops or the input ends\n  crash  exit 1/3 when it crashes, 5 if it hangs; keeps watching through stops and restarts\n  exit   exit 0 when it stops in an orderly way, 1/3 if it crashes, 5 if it hangs\n  (none) report every change until the launch's story ends: exit 1/3 when it crashes, 5 if it hangs, 0 when it stops in an orderly way or the input ends\n\n--keep-watching: do not stop at the end of a launch's story: report every later change (a hang that resolves, the launches of a service that restarts) until the input ends or --timeout passes, then exit as the current launch stands (0, 1/3 or 5).\n\nExit codes: 0 the awaited state, 1 crashed (cause identified), 3 crashed (cause not identified), 4 the input ended or the launch stopped before the awaited state, 5 hung, 124 --timeout passed, 2 error.\n\nA log that a new launch appends to (>> server.log): give the line count before the launch, so the old launch's crash is not taken for the new one's:\n  from=$(cat server.log 2>/dev/null | wc -l)\n  python -m sglang.launch_server ... >> server.log 2>&1 &\n  logdiag watch server.log --after-line \"$from\" --until ready --timeout 30m"
)]
struct WatchArgs {
    /// The log to follow (it may not exist yet; it may be truncated or
    /// rotated), or - for stdin.
    path: Option<String>,
    /// Stop when the current launch reaches this state (see below).
    #[arg(long, value_enum)]
    until: Option<UntilArg>,
    /// Go on past the end of the current launch's story (a crash, a hang,
    /// a stop) and report the launches that follow (see below).
    #[arg(long, conflicts_with = "until")]
    keep_watching: bool,
    /// Watch each unit of a journal on its own, every launch of each, until
    /// the input ends or SIGTERM (exit 0): the agent a node runs beside
    /// --metrics-file. Implies --keep-watching.
    #[arg(long, conflicts_with = "until")]
    each_unit: bool,
    /// Read the journal itself: run `journalctl --follow --boot
    /// --lines=all --output=export` (with each --unit) and follow what it
    /// prints, instead of PATH.
    #[arg(long, conflicts_with = "path")]
    journal: bool,
    /// With --journal: read this journal file (journalctl --file) instead
    /// of the system's current boot.
    #[arg(long, value_name = "FILE", requires = "journal")]
    journal_file: Option<PathBuf>,
    /// Give up after this long (30s, 5m, 1h30m, 250ms): exit 124.
    #[arg(long, value_name = "DUR")]
    timeout: Option<String>,
    /// A launch whose last progress line showed requests running or
    /// waiting is hung after this long without a progress line; a start-up
    /// phase that lasts this long gets a note [default: 10m].
    #[arg(long, value_name = "DUR")]
    hang_after: Option<String>,
    /// The lines up to N are earlier launches: the current launch begins
    /// after line N (for a log a new launch appends to).
    #[arg(long, value_name = "N")]
    after_line: Option<u64>,
    /// Follow only this unit, pod or container of a journal of several
    /// (repeatable; globs as journalctl -u takes them).
    #[arg(long = "unit", short = 'u', value_name = "NAME", value_parser = unit_pattern)]
    units: Vec<String>,
    /// Output format: text, or one JSON object per change (NDJSON).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,
    /// Also write the units' states, crashes, speeds and hangs as
    /// Prometheus metrics to this file, whole at each change (for
    /// node_exporter's textfile collector: a name ending in .prom in its
    /// directory).
    #[arg(long, value_name = "PATH")]
    metrics_file: Option<PathBuf>,
    #[command(flatten)]
    rules: RuleArgs,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum UntilArg {
    /// The launch is ready: a generation completed (exit 0).
    Ready,
    /// The launch crashes (exit 1 or 3).
    Crash,
    /// The launch ends: it crashes (1 or 3) or stops (0).
    Exit,
}

#[derive(Subcommand, Debug)]
enum RulesAction {
    /// List every rule: id, role, category.
    List,
    /// List the categories a rule may name, and what each means.
    Categories,
    /// Check rule files: schema, regexes, samples and counter-samples.
    Check {
        /// A directory of rule files (default: the built-in rules and --rules).
        dir: Option<PathBuf>,
    },
    /// Print the literals the rules require, one per line.
    ///
    /// A line with none of them (ASCII case ignored) is matched by no rule
    /// but those without literals (their number goes to stderr). They are
    /// what logdiag must look for in text that repeats no template: `rg -i
    /// -F -f` of them is its yardstick there.
    Literals,
    /// Show what a rule matches, its hint and its samples.
    Explain {
        /// The rule id.
        id: String,
    },
    /// Write a rule skeleton (TOML, to stdout) for a failure no rule names
    /// in a log: its regex, literals, sample and inferred category.
    Draft {
        /// The log.
        file: String,
        /// The run whose failure to draft (its number in the report;
        /// default: the last run a failure no rule names ended).
        #[arg(long, value_name = "N")]
        run: Option<usize>,
    },
}

/// Runs the command line; returns the process exit code.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // Names are text through the report; one that is not UTF-8 is said in
    // one line, with the way around it, rather than with clap's usage.
    if let Some(name) = args.iter().skip(1).find(|a| a.to_str().is_none()) {
        let shown = for_terminal_lines(&name.to_string_lossy()).into_owned();
        eprintln!(
            "logdiag: {shown}: the name is not UTF-8, which logdiag cannot report: rename it, or pipe it in (logdiag - < FILE)"
        );
        return Exit::Error.code();
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                let _ = e.print();
                return Exit::Healthy.code();
            }
            // A usage error can quote what was typed: escaped like any name.
            eprint!("{}", for_terminal_lines(&e.render().to_string()));
            return Exit::Error.code();
        }
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = dispatch(cli, &mut out).and_then(|exit| match out.flush() {
        Err(e) if !is_closed_pipe(&e) => Err(Error::Output(e)),
        _ => Ok(exit),
    });
    // Every failure's exit, in one place: a closed output pipe (`| head`)
    // ends quietly with the command's own exit, or 0 if it had none yet.
    match result {
        Ok(exit) => exit.code(),
        Err(e) => match e.exit() {
            None => Exit::Healthy.code(),
            Some(exit) => {
                eprintln!("logdiag: {}", for_terminal_lines(&e.to_string()));
                exit.code()
            }
        },
    }
}

/// Runs the command the line names.
fn dispatch(cli: Cli, out: &mut dyn Write) -> Result<Exit, Error> {
    match cli.command {
        None => match suggest::command_after_option(&cli.diagnose.paths)
            .or_else(|| suggest::misspelt_command(&cli.diagnose.paths))
        {
            Some(message) => Err(Error::Usage(message)),
            None => diagnose::run(&cli.diagnose, out),
        },
        Some(Command::Rules { action, rules }) => rules_cmd::run(&action, &rules, out),
        Some(Command::Test { dir, bless, junit, rules }) => {
            let mode = if bless { crate::corpus::Mode::Bless } else { crate::corpus::Mode::Check };
            corpus_cmd::run(&dir, mode, junit.as_deref(), &rules, out)
        }
        Some(Command::Events { path, rules }) => events_cmd::run(&path, &rules, out),
        Some(Command::Fleet { paths, format, degraded_below, threads, rules }) => {
            fleet_cmd::run(&paths, format, degraded_below, threads.map(usize::from), &rules, out)
        }
        Some(Command::Watch(args)) => watch::run(&args, out),
        Some(Command::Completions { shell }) => generate::completions(shell, out),
        Some(Command::Man { command }) => generate::man(command.as_deref(), out),
    }
}

/// Loads built-in and user rules; prints every rule error and fails.
fn load_rules(args: &RuleArgs) -> Result<RuleSet, Error> {
    let options = LoadOptions {
        builtin: !args.no_default_rules,
        dirs: args.rules.clone(),
        check_builtin_samples: false,
    };
    crate::rules::load::load(&options).map_err(|errors| {
        for e in &errors {
            eprintln!("{}", for_terminal_lines(&e.to_string()));
        }
        Error::Rules { problems: errors.len() }
    })
}

/// Writes a line of text output (names and text in it escaped for the
/// terminal), mapping errors for the dispatcher.
fn write_line(out: &mut dyn Write, line: &str) -> Result<(), Error> {
    writeln!(out, "{}", for_terminal_lines(line)).map_err(Error::Output)
}
