//! A fleet: many hosts' logs judged in one run. Each host gets the
//! verdict of its current launches; hosts are grouped by what happened to
//! them (a crash by its category, and for a failure no rule names, by its
//! fingerprint; a hang; a collapse; healthy), each group with the host
//! where it happened first and last by the logs' clocks; and a host whose
//! generation speed is far below that of the hosts launched the same way
//! is named (see [`Configuration`]).

mod configuration;

use serde::Serialize;

pub use configuration::{Configuration, Slow};

use crate::engine::diagnosis::{Outcome, Run};
use crate::engine::Diagnosis;
use crate::framing::frame_line;
use crate::framing::printed_time::{self, PrintedTime};
use crate::vitals::args::LaunchArgs;
use configuration::Measured;

/// What happened on one host.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Host {
    /// Its name: the file, or the folder, its log came from; in one
    /// stream of many hosts, its label (`host`, `instance`, `pod`…).
    pub host: String,
    /// `crash`, `hung`, `degraded`, `slow` (healthy by its own log, far
    /// slower than the hosts launched the same way), `healthy`, or
    /// `no-launch`.
    pub verdict: &'static str,
    /// A crash's root-cause category.
    pub category: Option<String>,
    /// A failure no rule names: its fingerprint.
    pub fingerprint: Option<String>,
    /// What decided it, in a line: the cause's title, or the last progress
    /// line of a hang.
    pub title: Option<String>,
    /// The decisive line's number in its file.
    pub line: Option<u64>,
    /// Its time, as the log printed it.
    pub time: Option<String>,
    /// Median generated tokens per second of its latest launch that
    /// generated.
    pub tok_s: Option<f64>,
    /// The same per running request.
    pub tok_s_per_request: Option<f64>,
    /// Median requests running, over the lines that measured speed.
    pub running: Option<f64>,
    /// The model it served, when its launch printed its arguments.
    pub model: Option<String>,
    /// The number of its [`Configuration`].
    pub configuration: usize,
}

/// Hosts to which the same thing happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    /// The hosts' verdict.
    pub verdict: &'static str,
    /// The category of a crash.
    pub category: Option<String>,
    /// The fingerprint of a failure no rule names.
    pub fingerprint: Option<String>,
    /// The title of the first host's cause.
    pub title: Option<String>,
    /// The hosts, the first to be hit first.
    pub hosts: Vec<String>,
    /// Where and when it happened first (by the logs' clocks).
    pub first: Option<Sighting>,
    /// Where and when it happened last.
    pub last: Option<Sighting>,
}

/// A host and the time its log printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sighting {
    /// The host.
    pub host: String,
    /// The time, as printed.
    pub time: String,
}

/// The fleet's report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fleet {
    /// Every host, in name order.
    pub hosts: Vec<Host>,
    /// The groups, the largest first (healthy hosts last).
    pub groups: Vec<Group>,
    /// The hosts by how they were launched, the most first.
    pub configurations: Vec<Configuration>,
    /// Every slow host of every configuration, in name order.
    pub slow: Vec<String>,
}

/// The fleet `diagnosis` shows, its sources named as hosts by `host_of`;
/// a host is slow when it keeps less than `below` of its configuration's
/// speed.
pub fn summarize(diagnosis: &Diagnosis, host_of: impl Fn(&str) -> String, below: f64) -> Fleet {
    // Each host's runs, from all its files (a folder of a host's logs is
    // one host) or from its part of a stream of many.
    let mut runs_of: Vec<(String, Vec<&Run>)> = Vec::new();
    fn add<'r>(runs_of: &mut Vec<(String, Vec<&'r Run>)>, name: String, runs: Vec<&'r Run>) {
        match runs_of.iter_mut().find(|(n, _)| *n == name) {
            Some((_, kept)) => kept.extend(runs),
            None => runs_of.push((name, runs)),
        }
    }
    for input in &diagnosis.inputs {
        let runs: Vec<&Run> = diagnosis.runs.iter().filter(|r| r.source == input.name).collect();
        match hosts_within(&runs) {
            Some(names) => {
                for (unit, name) in names {
                    let own = runs.iter().copied().filter(|r| r.unit.as_deref() == Some(unit)).collect();
                    add(&mut runs_of, name, own);
                }
            }
            None => add(&mut runs_of, host_of(&input.name), runs),
        }
    }
    let mut hosts: Vec<(Host, Option<&LaunchArgs>)> =
        runs_of.into_iter().map(|(name, runs)| host(name, &runs)).collect();
    hosts.sort_by(|a, b| a.0.host.cmp(&b.0.host));
    let measured: Vec<Measured<'_>> =
        hosts.iter().map(|(host, args)| Measured { host, args: *args }).collect();
    let (configurations, numbers) = configuration::configurations(&measured, below);
    let mut hosts: Vec<Host> = hosts.into_iter().map(|(host, _)| host).collect();
    for (host, number) in hosts.iter_mut().zip(numbers) {
        host.configuration = number;
    }
    let mut slow: Vec<String> =
        configurations.iter().flat_map(|c| c.slow.iter().map(|s| s.host.clone())).collect();
    slow.sort();
    // A host healthy by its own log but far slower than its peers is not
    // counted with the healthy ones.
    for host in hosts.iter_mut().filter(|h| h.verdict == "healthy" && slow.contains(&h.host)) {
        host.verdict = "slow";
    }
    Fleet { groups: groups(&hosts), hosts, configurations, slow }
}

/// The hosts of one stream that holds many (`logcli … -o jsonl`, whose
/// label sets are its units; `kubectl logs --prefix`, whose pods are):
/// each unit with its host's name, or `None` for a host's own log.
fn hosts_within<'r>(runs: &[&'r Run]) -> Option<Vec<(&'r str, String)>> {
    let mut hosts: Vec<(&str, String)> = Vec::new();
    for run in runs {
        let unit = run.unit.as_deref()?;
        let name = if unit.starts_with('{') {
            label_host(unit)
        } else {
            unit.strip_prefix("pod/")?.split('/').next()?.to_string()
        };
        if !hosts.iter().any(|(u, _)| *u == unit) {
            hosts.push((unit, name));
        }
    }
    (!hosts.is_empty()).then_some(hosts)
}

/// The host a Loki label set names (`{host="node-07", job="sglang"}`):
/// its `host`, `hostname`, `instance`, `node` or `pod` label, else the
/// whole set.
fn label_host(labels: &str) -> String {
    let pairs = labels.trim_start_matches('{').trim_end_matches('}').split(", ");
    let value = |key: &str| {
        pairs.clone().find_map(|pair| {
            let (name, value) = pair.split_once('=')?;
            (name == key).then(|| value.trim_matches('"').to_string())
        })
    };
    ["host", "hostname", "instance", "node", "pod"]
        .into_iter()
        .find_map(value)
        .unwrap_or_else(|| labels.to_string())
}

/// One host's verdict from its runs (a crash of a current launch first,
/// then a hang, a collapse; healthy otherwise), and the arguments of the
/// launch its speed is from.
fn host<'r>(name: String, runs: &[&'r Run]) -> (Host, Option<&'r LaunchArgs>) {
    let current: Vec<&Run> = runs.iter().copied().filter(|r| !r.history).collect();
    // The speed of its latest launch that generated, and that launch's
    // arguments; the latest printed ones when no launch generated.
    let generated =
        runs.iter().rev().find(|r| r.vitals.as_ref().is_some_and(|v| v.generation_tok_s.is_some()));
    let vitals = generated.and_then(|r| r.vitals.as_ref());
    let args = generated
        .and_then(|r| r.launch_args.as_deref())
        .or_else(|| runs.iter().rev().find_map(|r| r.launch_args.as_deref()));
    let host = judged(name, &current, runs.is_empty());
    let host = Host {
        tok_s: vitals.and_then(|v| v.generation_tok_s.as_ref()).map(|s| s.median),
        tok_s_per_request: vitals.and_then(|v| v.tok_s_per_request.as_ref()).map(|s| s.median),
        running: vitals.and_then(|v| v.running.as_ref()).map(|r| r.median),
        model: args.and_then(LaunchArgs::model).map(str::to_string),
        ..host
    };
    (host, args)
}

/// A host's verdict from its current runs.
fn judged(name: String, current: &[&Run], no_launch: bool) -> Host {
    let mut host = Host {
        host: name,
        verdict: if no_launch { "no-launch" } else { "healthy" },
        category: None,
        fingerprint: None,
        title: None,
        line: None,
        time: None,
        tok_s: None,
        tok_s_per_request: None,
        running: None,
        model: None,
        configuration: 0,
    };
    let worst = [Outcome::Crash, Outcome::Hung, Outcome::Degraded]
        .into_iter()
        .find_map(|outcome| current.iter().rev().find(|r| r.outcome == outcome));
    let Some(run) = worst else { return host };
    host.verdict = run.outcome.name();
    let evidence = match &run.root_cause {
        Some(cause) => {
            host.category = Some(cause.category.name().to_string());
            host.fingerprint = cause.fingerprint.as_ref().map(|f| f.id.clone());
            host.title = Some(cause.title.clone());
            cause.evidence.first()
        }
        // A hang's last progress line; a collapse's slowest.
        None => match (&run.hang, &run.degraded) {
            (Some(hang), _) => Some(&hang.last_progress),
            (None, Some(degraded)) => degraded.evidence.last(),
            (None, None) => None,
        },
    };
    if let Some(evidence) = evidence {
        host.line = Some(evidence.line);
        if host.title.is_none() {
            host.title = Some(evidence.text.trim().to_string());
        }
    }
    // When it struck, by the log's clock: the decisive line's stamp, or
    // the first stamp among the lines that support it (a traceback's
    // exception line has none of its own).
    let supporting = run.root_cause.iter().flat_map(|c| &c.evidence);
    host.time = evidence
        .into_iter()
        .chain(supporting)
        .find_map(|e| frame_line(&e.text).first.time.map(str::to_string));
    host
}

/// The hosts grouped by what happened to them.
fn groups(hosts: &[Host]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for host in hosts {
        let fingerprint = host.fingerprint.clone().filter(|_| host.category.as_deref() == Some("unknown"));
        let same = |g: &&mut Group| {
            g.verdict == host.verdict && g.category == host.category && g.fingerprint == fingerprint
        };
        match groups.iter_mut().find(same) {
            Some(group) => group.hosts.push(host.host.clone()),
            None => groups.push(Group {
                verdict: host.verdict,
                category: host.category.clone(),
                fingerprint,
                title: host.title.clone(),
                hosts: vec![host.host.clone()],
                first: None,
                last: None,
            }),
        }
    }
    for group in &mut groups {
        let mut seen: Vec<(f64, Sighting)> = group
            .hosts
            .iter()
            .filter_map(|name| {
                let host = hosts.iter().find(|h| h.host == *name)?;
                let time = host.time.clone()?;
                Some((seconds(&time)?, Sighting { host: name.clone(), time }))
            })
            .collect();
        seen.sort_by(|a, b| a.0.total_cmp(&b.0));
        let order: Vec<String> = seen.iter().map(|(_, s)| s.host.clone()).collect();
        group.hosts.sort_by_key(|h| order.iter().position(|o| o == h).unwrap_or(usize::MAX));
        group.first = seen.first().map(|(_, s)| s.clone());
        group.last = seen.last().map(|(_, s)| s.clone());
    }
    groups.sort_by_key(|g| (g.verdict == "healthy", std::cmp::Reverse(g.hosts.len())));
    groups
}

/// A printed time as seconds on one clock, to order sightings (a date
/// without its year is taken in one year, as logs of one incident are).
fn seconds(time: &str) -> Option<f64> {
    match printed_time::read(time)? {
        PrintedTime::EpochMicros(micros) => Some(micros as f64 / 1e6),
        PrintedTime::Dated(date) => {
            Some(date.days_since_epoch(2000)? as f64 * 86_400.0 + date.seconds_of_day - date.offset)
        }
        PrintedTime::SinceBoot(seconds) => Some(seconds),
    }
}
