//! What users' tooling wraps a program's output in, made from a fixture's
//! lines: the prefixes of `docker logs -t`, `kubectl logs --prefix` (with
//! and without `--timestamps`) and `docker compose logs`, Docker's
//! json-file records, and a real journal that the real `journalctl`
//! renders in its modes that print an entry on a line of its own. Each
//! wrapped line is the fixture's line, in order (or in reverse, newest
//! first), so a diagnosis's evidence line keeps its number.

use crate::journal::{render, write_journal};
use crate::util::TempDir;

/// A wrapper made by hand from the documented format.
#[derive(Debug, Clone, Copy)]
pub enum Prefix {
    /// `docker logs -t`: an RFC 3339 stamp with nanoseconds, a space.
    DockerTimestamps,
    /// `kubectl logs --prefix`: `[pod/NAME/CONTAINER] `.
    Kubectl,
    /// `kubectl logs --prefix --timestamps`: the pod tag, then the stamp.
    KubectlTimestamps,
    /// `docker compose logs`: the service name padded, `  | `.
    Compose,
    /// Docker's json-file log driver: one JSON object per line.
    JsonFile,
}

pub const PREFIXES: [Prefix; 5] =
    [Prefix::DockerTimestamps, Prefix::Kubectl, Prefix::KubectlTimestamps, Prefix::Compose, Prefix::JsonFile];

/// A stamp for line `i`: a millisecond apart, as a busy writer's are.
fn rfc3339(i: usize) -> String {
    let ms = 500 + i as u64;
    format!("2026-05-25T20:{:02}:{:02}.{:03}456789Z", 10 + ms / 60_000, ms / 1000 % 60, ms % 1000)
}

/// `lines` as `prefix` prints them.
pub fn wrap(lines: &[&str], prefix: Prefix) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        match prefix {
            Prefix::DockerTimestamps => out.push_str(&format!("{} {line}\n", rfc3339(i))),
            Prefix::Kubectl => out.push_str(&format!("[pod/sglang-0/server] {line}\n")),
            Prefix::KubectlTimestamps => {
                out.push_str(&format!("[pod/sglang-0/server] {} {line}\n", rfc3339(i)))
            }
            Prefix::Compose => out.push_str(&format!("sglang-1  | {line}\n")),
            Prefix::JsonFile => {
                let log = serde_json::to_string(&format!("{line}\n")).unwrap();
                out.push_str(&format!(
                    "{{\"log\":{log},\"stream\":\"stderr\",\"time\":\"{}\"}}\n",
                    rfc3339(i)
                ));
            }
        }
    }
    out
}

/// A journal of many fixtures' lines, one writer each, rendered by the
/// real `journalctl` and split back by writer.
pub struct Journal {
    dir: TempDir,
    file: std::path::PathBuf,
    writers: usize,
}

/// Writer `n`'s syslog identifier.
fn identifier(n: usize) -> String {
    format!("fx{n:04}")
}

impl Journal {
    /// Writes each of `logs` as a writer's entries to a journal file, with
    /// the real systemd-journal-remote: one per line, 0.6 s apart, so that
    /// second-resolution stamps of neighbours may tie but three lines
    /// always tell their order (fewer may not: see `looks_reversed`).
    pub fn of(logs: &[Vec<&str>]) -> Journal {
        let dir = TempDir::new("wrapped-journal");
        let mut export = String::new();
        let mut entry = 0u64;
        for (n, lines) in logs.iter().enumerate() {
            for line in lines {
                entry += 1;
                let usec = 1_748_204_272_000_000u64 + entry * 600_000;
                export.push_str(&format!(
                    "__CURSOR=s=0123456789abcdef0123456789abcdef;i={entry:x};b=0123456789abcdef0123456789abcdef;m={entry:x};t={usec:x};x=1\n\
                     __REALTIME_TIMESTAMP={usec}\n__MONOTONIC_TIMESTAMP={mono}\n_BOOT_ID=0123456789abcdef0123456789abcdef\n\
                     _HOSTNAME=gpu-node-7\nSYSLOG_IDENTIFIER={ident}\nPRIORITY=6\n_PID={pid}\n_SYSTEMD_UNIT={ident}.service\n",
                    mono = 1_000_000 + entry * 600_000,
                    ident = identifier(n),
                    pid = 1000 + n,
                ));
                export_field(&mut export, "MESSAGE", line);
                export.push('\n');
            }
        }
        let file = write_journal(&dir, "wrapped.journal", &export);
        Journal { dir, file, writers: logs.len() }
    }

    /// Each writer's lines as `journalctl` with `args` prints them (a mode
    /// that prints each entry on a line of its own).
    pub fn rendered(&self, args: &[&str]) -> Vec<String> {
        split_by_writer(&self.rendered_whole(args), self.writers)
    }

    /// Each writer's entries as `journalctl` with `args` prints them in a
    /// mode that spreads an entry over lines of fields (`export`,
    /// `verbose`, `json-pretty`; `args[1]`), with, for each line of a
    /// writer's part, the number of the program's line its entry holds.
    pub fn rendered_spread(&self, args: &[&str]) -> Vec<(String, Vec<u64>)> {
        let whole = self.rendered_whole(args);
        let mut parts = vec![(String::new(), Vec::new()); self.writers];
        let mut entries_of = vec![0u64; self.writers];
        let writer = regex::Regex::new(r#"SYSLOG_IDENTIFIER"?\s*[=:]\s*"?fx(\d{4})"#).unwrap();
        for entry in spread_entries(&whole, args[1]) {
            let n = writer.captures(&entry).and_then(|caps| caps[1].parse::<usize>().ok());
            if let Some(n) = n.filter(|&n| n < self.writers) {
                entries_of[n] += 1;
                let (text, lines) = &mut parts[n];
                for line in entry.split_inclusive('\n') {
                    text.push_str(line);
                    lines.push(entries_of[n]);
                }
            }
        }
        // Newest first, the last entry holds the first line.
        if args.contains(&"-r") {
            for ((_, lines), entries) in parts.iter_mut().zip(entries_of) {
                lines.iter_mut().for_each(|line| *line = entries + 1 - *line);
            }
        }
        parts
    }

    /// What `journalctl` with `args` prints.
    pub fn rendered_whole(&self, args: &[&str]) -> String {
        let into = self.dir.path().join(format!("rendered{}", args.join("")));
        render(&self.file, args, &into);
        String::from_utf8(std::fs::read(&into).unwrap()).unwrap()
    }
}

/// Adds `name=value` in the export format (a value without a newline
/// may be text, whatever else it holds).
fn export_field(export: &mut String, name: &str, value: &str) {
    export.push_str(&format!("{name}={value}\n"));
}

/// Splits journal output of a mode that prints each entry on a line of
/// its own into each writer's part (told by its identifier, `fxNNNN`).
fn split_by_writer(text: &str, writers: usize) -> Vec<String> {
    let mut parts = vec![String::new(); writers];
    // The writer as journalctl prints it: `gpu-node-7 fx0042[1042]:` in
    // the short modes, `fx0042.service[1042]:` in with-unit, the
    // identifier's field in JSON (a message may hold the letters too:
    // ROCm's `gfx1151"`).
    let tag = regex::Regex::new(r#" gpu-node-7 fx(\d{4})(?:\.service)?\[|"SYSLOG_IDENTIFIER":"fx(\d{4})""#)
        .unwrap();
    for line in text.split_inclusive('\n') {
        let writer =
            tag.captures(line).and_then(|caps| caps.get(1).or(caps.get(2))?.as_str().parse::<usize>().ok());
        if let Some(n) = writer.filter(|&n| n < writers) {
            parts[n].push_str(line);
        }
    }
    parts
}

/// The entries of `mode`'s output, each with its lines: export's end at
/// a blank line, verbose's start at a line that is not indented,
/// json-pretty's at a line that is `{`.
fn spread_entries(text: &str, mode: &str) -> Vec<String> {
    let mut entries: Vec<String> = Vec::new();
    let mut ended = true;
    for line in text.split_inclusive('\n') {
        let starts = match mode {
            "export" => ended,
            "verbose" => !line.starts_with([' ', '\t']),
            _ => line.trim_end() == "{",
        };
        if starts || entries.is_empty() {
            entries.push(String::new());
        }
        entries.last_mut().unwrap().push_str(line);
        ended = line == "\n";
    }
    entries
}

/// Whether a fixture is a program's own output: no transport or wrapper
/// of its own (a journal excerpt is not wrapped again), read from the
/// formats its diagnosis saw.
pub fn is_program_output(formats: &[String]) -> bool {
    const WRAPPING: [&str; 8] =
        ["journal", "syslog", "dmesg", "docker-json", "systemctl-status", "kubectl", "loki", "compose"];
    !formats.iter().any(|f| WRAPPING.iter().any(|w| f.starts_with(w)))
}

/// The fixture's lines, as the program wrote them.
pub fn program_lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}
