//! Integration tests: the real `logdiag` binary on real incidents.
//! One test binary; each module is one concern.

/// Shared helpers: running the binary, temporary folders.
mod util;

/// The command line: exit codes, stdin, directories, gzip, errors, output.
mod cli;
/// The process's fate decides: every supervisor's words, writers that go on.
mod fate;
/// Fingerprints of failures no rule names, and the runs they ended.
mod fingerprint;
/// Golden incidents in fixtures/: labels and blessed reports.
mod fixtures;
/// `logdiag fleet`: many hosts' logs, grouped by what happened to them.
mod fleet;
/// `logdiag completions SHELL` and `logdiag man`.
mod generated;
/// Hostile input and broken rules with the real binary.
mod hostile;
/// The sources' rooms: no file or function outgrows its size.
mod house;
/// What is read: directory walks, links, empty input, files that are not logs.
mod inputs;
/// The seed incident as the real journalctl prints it, in every mode.
mod journal;
/// `logdiag test DIR --junit FILE`: JUnit XML for CI.
mod junit;
/// The text report fits the terminal: width, colour, whole lines in a pipe.
mod layout;
/// `--format markdown`: a report to paste into an issue.
mod markdown;
/// Peak memory on inputs that used to make it grow.
mod memory;
/// The same incident, the same diagnosis, whatever wraps it.
mod metamorphic;
/// `logdiag watch --metrics-file`: Prometheus metrics of what was judged.
mod metrics;
/// The metrics scraped by a real node_exporter and Prometheus.
mod prometheus;
/// Properties on generated input: no panic, split-independence, noise.
mod properties;
/// The README's runnable examples, in a fresh home.
mod readme;
/// Rule tooling and the rule-authoring guide's example.
mod rules;
/// The founding incidents (fixtures/seed-*): what a user at 3 a.m. must be told.
mod seeds;
/// Inputs that mix JSON records and text, damaged records, Docker logs.
mod shapes;
/// A mutation fuzzer on the stable toolchain (ignored: run on demand).
mod soak;
/// `systemctl status` pastes, hard-wrapped and bare systemd lines.
mod status;
/// Scary lines of work that carries on: not causes, and no cover for one.
mod survived;
/// What reaches the terminal: escaped names and text, usage errors.
mod terminal;
/// A mistyped subcommand: a suggestion, unless such a file exists.
mod typos;
/// Journals of many units: each unit judged on its own, `--unit`.
mod units;
/// Run vitals: collapses, load, hangs, idle servers, the flags.
mod vitals;
/// `logdiag watch` following a log that another process writes.
mod watch;
/// A category learned from the catalogue's words, for failures no rule names.
mod wording;
/// A program's output as containers, kubectl and the journal wrap it.
mod wrappers;
