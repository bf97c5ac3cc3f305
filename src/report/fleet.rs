//! The fleet report: the groups of hosts to which the same thing
//! happened, the largest first, then the slow hosts; as text, Markdown or
//! JSON.

use std::io::{self, Write};

use super::escape::for_terminal;
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

/// Writes the fleet as text.
pub fn write_fleet_text(out: &mut dyn Write, fleet: &Fleet) -> io::Result<()> {
    let total = fleet.hosts.len();
    writeln!(out, "fleet: {total} hosts")?;
    for group in &fleet.groups {
        writeln!(out, "{}", for_terminal(&headline(group, total)))?;
        if group.verdict != "healthy" {
            if let Some(title) = &group.title {
                writeln!(out, "  {}", for_terminal(title))?;
            }
            writeln!(out, "  hosts: {}", for_terminal(&group.hosts.join(", ")))?;
        }
    }
    write_slow(out, fleet, "")
}

/// Writes the fleet as Markdown.
pub fn write_fleet_markdown(out: &mut dyn Write, fleet: &Fleet) -> io::Result<()> {
    let total = fleet.hosts.len();
    writeln!(out, "# Fleet: {total} hosts\n")?;
    for group in &fleet.groups {
        writeln!(out, "- **{}**", headline(group, total))?;
        if group.verdict != "healthy" {
            if let Some(title) = &group.title {
                writeln!(out, "  - {}", title.replace('|', "\\|"))?;
            }
            writeln!(out, "  - hosts: {}", group.hosts.join(", "))?;
        }
    }
    writeln!(out, "\n| host | verdict | cause | line | time | tok/s |\n|---|---|---|---|---|---|")?;
    for host in &fleet.hosts {
        let cell = |text: Option<String>| text.unwrap_or_default().replace('|', "\\|");
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            host.host,
            host.verdict,
            cell(host.category.clone()),
            cell(host.line.map(|l| l.to_string())),
            cell(host.time.clone()),
            cell(host.tok_s.map(|s| format!("{s:.0}"))),
        )?;
    }
    write_slow(out, fleet, "\n")
}

/// Writes the fleet as one JSON document.
pub fn write_fleet_json(out: &mut dyn Write, fleet: &Fleet) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, fleet)?;
    out.write_all(b"\n")
}

fn write_slow(out: &mut dyn Write, fleet: &Fleet, before: &str) -> io::Result<()> {
    let Some(median) = fleet.median_tok_s.filter(|_| !fleet.slow.is_empty()) else { return Ok(()) };
    let slow: Vec<String> = fleet
        .slow
        .iter()
        .map(|name| {
            let speed = fleet.hosts.iter().find(|h| h.host == *name).and_then(|h| h.tok_s).unwrap_or(0.0);
            format!("{name} ({speed:.0} tok/s)")
        })
        .collect();
    writeln!(
        out,
        "{before}slow: {} against the fleet's median {median:.0} tok/s",
        for_terminal(&slow.join(", "))
    )
}
