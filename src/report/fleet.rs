//! The fleet report: the groups of hosts to which the same thing
//! happened, the largest first, then how the hosts were launched; as text, Markdown or JSON.

use std::io::{self, Write};

use super::escape::for_terminal;
use super::vitals::figure;
use crate::fleet::{Fleet, Group};

/// A group in words: `cuda-oom on 12 of 40 hosts (first node-07 at …,
/// last node-31 at …)`.
fn headline(group: &Group, total: usize) -> String {
    let what = match (group.verdict, group.category.as_deref()) {
        ("crash", Some("unknown")) => match &group.fingerprint {
            Some(print) => format!("an unrecognised crash (fingerprint {print})"),
            None => "an unrecognised crash".to_string(),
        },
        ("crash", Some(category)) => category.to_string(),
        (verdict, _) => verdict.to_string(),
    };
    let count = group.hosts.len();
    if group.verdict == "healthy" {
        return format!("{count} healthy");
    }
    let mut line = format!("{what} on {count} of {total} hosts");
    match (&group.first, &group.last) {
        (Some(first), Some(last)) if count > 1 && first.host != last.host => line.push_str(&format!(
            " (first {} at {}, last {} at {})",
            first.host, first.time, last.host, last.time
        )),
        (Some(first), _) => line.push_str(&format!(" ({} at {})", first.host, first.time)),
        _ => {}
    }
    line
}

/// What decided a group, in a line: its first host's cause, or for slow
/// hosts what the first of them kept of its configuration's speed.
fn title(fleet: &Fleet, group: &Group) -> Option<String> {
    if group.verdict != "slow" {
        return group.title.clone();
    }
    let first = group.hosts.first()?;
    fleet.configurations.iter().find_map(|c| {
        let slow = c.slow.iter().find(|s| s.host == *first)?;
        Some(format!(
            "kept {:.0}% of configuration {}'s speed per request ({} tok/s at {:.0} running against {} at {:.0})",
            slow.kept * 100.0,
            c.number,
            figure(slow.tok_s_per_request),
            slow.running,
            figure(c.median_tok_s_per_request.unwrap_or(0.0)),
            c.median_running.unwrap_or(0.0),
        ))
    })
}

/// Writes the fleet as text.
pub fn write_fleet_text(out: &mut dyn Write, fleet: &Fleet) -> io::Result<()> {
    let total = fleet.hosts.len();
    writeln!(out, "fleet: {total} hosts")?;
    for group in &fleet.groups {
        writeln!(out, "{}", for_terminal(&headline(group, total)))?;
        if group.verdict != "healthy" {
            if let Some(title) = title(fleet, group) {
                writeln!(out, "  {}", for_terminal(&title))?;
            }
            writeln!(out, "  hosts: {}", for_terminal(&group.hosts.join(", ")))?;
        }
    }
    if let Some((heading, lines)) = configuration_lines(fleet) {
        writeln!(out, "{heading}")?;
        for line in lines {
            writeln!(out, "  {}", for_terminal(&line))?;
        }
    }
    Ok(())
}

/// Writes the fleet as Markdown.
pub fn write_fleet_markdown(out: &mut dyn Write, fleet: &Fleet) -> io::Result<()> {
    let total = fleet.hosts.len();
    writeln!(out, "# Fleet: {total} hosts\n")?;
    for group in &fleet.groups {
        writeln!(out, "- **{}**", headline(group, total))?;
        if group.verdict != "healthy" {
            if let Some(title) = title(fleet, group) {
                writeln!(out, "  - {}", title.replace('|', "\\|"))?;
            }
            writeln!(out, "  - hosts: {}", group.hosts.join(", "))?;
        }
    }
    writeln!(
        out,
        "\n| host | verdict | cause | line | time | tok/s | configuration |\n|---|---|---|---|---|---|---|"
    )?;
    for host in &fleet.hosts {
        let cell = |text: Option<String>| text.unwrap_or_default().replace('|', "\\|");
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            host.host,
            host.verdict,
            cell(host.category.clone()),
            cell(host.line.map(|l| l.to_string())),
            cell(host.time.clone()),
            cell(host.tok_s.map(|s| format!("{s:.0}"))),
            host.configuration,
        )?;
    }
    if let Some((heading, lines)) = configuration_lines(fleet) {
        writeln!(out, "\n- {heading}")?;
        for line in lines {
            writeln!(out, "  - {}", line.replace('|', "\\|"))?;
        }
    }
    Ok(())
}

/// Writes the fleet as one JSON document.
pub fn write_fleet_json(out: &mut dyn Write, fleet: &Fleet) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, fleet)?;
    out.write_all(b"\n")
}

/// The configurations, when the hosts printed their arguments or were
/// launched in more than one way: each with its model, how it differs
/// from the first, and its typical speed.
fn configuration_lines(fleet: &Fleet) -> Option<(String, Vec<String>)> {
    let worth = fleet.configurations.len() > 1 || fleet.configurations.iter().any(|c| c.arguments_printed);
    if !worth {
        return None;
    }
    let heading = format!("launched {} ways:", fleet.configurations.len());
    let mut lines = Vec::new();
    for c in &fleet.configurations {
        let hosts = match c.hosts.len() {
            1 => "1 host".to_string(),
            n => format!("{n} hosts"),
        };
        let what = match (&c.model, c.arguments_printed) {
            (Some(model), _) => format!("{model} on {hosts}"),
            (None, true) => format!("{hosts}, model not named"),
            (None, false) => format!("{hosts}, launch arguments not printed"),
        };
        let mut line = format!("{}. {what}", c.number);
        if let (Some(tok_s), Some(per), Some(running)) =
            (c.median_tok_s, c.median_tok_s_per_request, c.median_running)
        {
            line.push_str(&format!(
                ": median {tok_s:.0} tok/s, {} per request at {running:.0} running",
                figure(per)
            ));
        }
        if let (Some(from), false) = (c.differs_from, c.differs.is_empty()) {
            let shown: Vec<String> = c
                .differs
                .iter()
                .take(DIFFERENCES_SHOWN)
                .map(|d| {
                    let value = |v: &Option<String>| v.clone().unwrap_or_else(|| "(not printed)".to_string());
                    format!("{} {} -> {}", d.name, value(&d.before), value(&d.after))
                })
                .collect();
            let more = c.differs.len().saturating_sub(DIFFERENCES_SHOWN);
            let more = if more > 0 { format!(", {more} more") } else { String::new() };
            line.push_str(&format!("; against {from}: {}{more}", shown.join(", ")));
        }
        lines.push(line);
    }
    Some((heading, lines))
}

/// Most argument differences shown per configuration (the JSON has all).
const DIFFERENCES_SHOWN: usize = 4;
