//! Speed compared like with like: the fleet's hosts split by the
//! configuration they launched (the model and arguments, without those
//! that only name the host), and within each, a host named slow when it
//! keeps less than a share of its configuration's typical speed per
//! running request at comparable load, the test launches of one server
//! are held to (`--degraded-below`).

use serde::Serialize;

use super::Host;
use crate::vitals::args::{ChangedArg, LaunchArgs};
use crate::vitals::collapse::{kept, Level};
use crate::vitals::median;

/// Fewest hosts of a configuration with speeds before any is called slow:
/// with fewer, there is no typical speed to fall short of.
pub(super) const FEWEST_TO_COMPARE: usize = 3;

/// Hosts launched the same way.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Configuration {
    /// Its number, from 1: the configuration of the most hosts first.
    pub number: usize,
    /// The model served, when the hosts printed their arguments.
    pub model: Option<String>,
    /// Whether the hosts printed their launch arguments; hosts that did
    /// not are one configuration, compared among themselves.
    pub arguments_printed: bool,
    /// The configuration its arguments are compared with: the first
    /// whose hosts printed theirs (none for that one itself, and for
    /// hosts that printed none).
    pub differs_from: Option<usize>,
    /// How its arguments differ from that one's (`before` is that one's
    /// value).
    pub differs: Vec<ChangedArg>,
    /// Its hosts, in name order.
    pub hosts: Vec<String>,
    /// The median of its hosts' generation speeds (tok/s).
    pub median_tok_s: Option<f64>,
    /// The median of its hosts' speeds per running request (tok/s).
    pub median_tok_s_per_request: Option<f64>,
    /// The median of its hosts' requests running.
    pub median_running: Option<f64>,
    /// Its hosts that kept less than the fleet's share of that speed.
    pub slow: Vec<Slow>,
}

/// A host slower than the others of its configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slow {
    /// The host.
    pub host: String,
    /// Its median generation speed per running request (tok/s).
    pub tok_s_per_request: f64,
    /// Its median of requests running.
    pub running: f64,
    /// The share of its configuration's speed it kept, load considered.
    pub kept: f64,
}

/// A host's speed and launch, as the comparison needs them.
pub(super) struct Measured<'h> {
    pub host: &'h Host,
    pub args: Option<&'h LaunchArgs>,
}

/// The configurations of `hosts`, the one of the most hosts first, each
/// host's slowness judged within its own (`below`: `--degraded-below`).
/// Returns them and, for each host in `measured`'s order, its
/// configuration's number.
pub(super) fn configurations(measured: &[Measured<'_>], below: f64) -> (Vec<Configuration>, Vec<usize>) {
    // Group by configuration, hosts that printed no arguments together.
    let mut keys: Vec<Option<LaunchArgs>> = Vec::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (i, m) in measured.iter().enumerate() {
        let key = m.args.map(LaunchArgs::configuration);
        match keys.iter().position(|k| *k == key) {
            Some(at) => members[at].push(i),
            None => {
                keys.push(key);
                members.push(vec![i]);
            }
        }
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    // The most hosts first; of equals, printed arguments first, then the
    // first host's name.
    order.sort_by_key(|&g| (std::cmp::Reverse(members[g].len()), keys[g].is_none(), members[g][0]));
    let first_printed = order.iter().enumerate().find_map(|(at, &g)| Some((at + 1, keys[g].as_ref()?)));
    let mut numbers = vec![0; measured.len()];
    let mut configurations = Vec::new();
    for (at, &g) in order.iter().enumerate() {
        let hosts: Vec<&Host> = members[g].iter().map(|&i| measured[i].host).collect();
        for &i in &members[g] {
            numbers[i] = at + 1;
        }
        let differs = match (&keys[g], first_printed) {
            (Some(own), Some((number, first))) if own != first => Some((number, own.changes_since(first))),
            _ => None,
        };
        let model = members[g].iter().find_map(|&i| measured[i].args?.model()).map(str::to_string);
        configurations.push(compared(at + 1, model, keys[g].is_some(), differs, &hosts, below));
    }
    (configurations, numbers)
}

/// One configuration's typical speed and its slow hosts.
fn compared(
    number: usize,
    model: Option<String>,
    arguments_printed: bool,
    differs: Option<(usize, Vec<ChangedArg>)>,
    hosts: &[&Host],
    below: f64,
) -> Configuration {
    let levels: Vec<(&Host, Level)> = hosts.iter().filter_map(|h| Some((*h, level(h)?))).collect();
    let median_of = |of: fn(&Level) -> f64| median(levels.iter().map(|(_, l)| of(l)).collect());
    let typical = Level {
        per_request: median_of(|l| l.per_request).unwrap_or(0.0),
        generation: median_of(|l| l.generation).unwrap_or(0.0),
        running: median_of(|l| l.running).unwrap_or(0.0),
        first_line: 0,
        last_line: 0,
    };
    let slow = if levels.len() >= FEWEST_TO_COMPARE {
        levels
            .iter()
            .filter_map(|(host, level)| {
                let kept = kept(&typical, level)?;
                (kept < below).then(|| Slow {
                    host: host.host.clone(),
                    tok_s_per_request: level.per_request,
                    running: level.running,
                    kept: (kept * 1000.0).round() / 1000.0,
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    let some = !levels.is_empty();
    Configuration {
        number,
        model,
        arguments_printed,
        differs_from: differs.as_ref().map(|(number, _)| *number),
        differs: differs.map(|(_, list)| list).unwrap_or_default(),
        hosts: hosts.iter().map(|h| h.host.clone()).collect(),
        median_tok_s: some.then_some(typical.generation),
        median_tok_s_per_request: some.then_some(typical.per_request),
        median_running: some.then_some(typical.running),
        slow,
    }
}

/// A host's speed as a level to compare.
fn level(host: &Host) -> Option<Level> {
    Some(Level {
        per_request: host.tok_s_per_request?,
        generation: host.tok_s?,
        running: host.running?,
        first_line: 0,
        last_line: 0,
    })
}
