//! `logdiag watch --metrics-file`: the founding incidents, followed to
//! their end, leave Prometheus metrics that say what happened, in a file
//! the real `promtool` accepts.

use std::collections::BTreeMap;
use std::process::Command;

use crate::util::*;

/// The samples of a metrics file: each series (name and labels, as
/// written) with its value.
fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').expect("a series and its value");
            (series.to_string(), value.parse().expect("a number"))
        })
        .collect()
}

/// Follows `case`'s log from stdin (a stream that ends: the watch ends
/// with it) with `args`, and gives the metrics it left.
fn metrics_of(case: &str, args: &[&str]) -> (String, BTreeMap<String, f64>) {
    let dir = TempDir::new("metrics");
    let file = dir.path().join("logdiag.prom");
    let log = std::fs::read(fixture(case)).unwrap();
    let mut all = vec!["watch", "-", "--metrics-file", file.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = run_stdin(&all, &log);
    assert!(matches!(out.status.code(), Some(0 | 1 | 3 | 5 | 6)), "{}", stderr(&out));
    let text = std::fs::read_to_string(&file).expect("the metrics file is written");
    promtool_accepts(&text);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left beside it: {leftovers:?}");
    (text.clone(), samples(&text))
}

/// Debian's promtool, or `None` (said on stderr) where it is not
/// installed and not required.
fn promtool() -> Option<&'static str> {
    let found = ["/usr/bin/promtool", "/usr/local/bin/promtool"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    if found.is_none() {
        assert!(
            std::env::var_os("LOGDIAG_REQUIRE_PROMETHEUS").is_none(),
            "promtool is needed (apt install prometheus)"
        );
        eprintln!("skipped: promtool not installed (apt install prometheus)");
    }
    found
}

/// The real `promtool check metrics` reads the text without a complaint
/// (Debian's prometheus package; `.ci/run` installs it and sets
/// LOGDIAG_REQUIRE_PROMETHEUS=1).
fn promtool_accepts(text: &str) {
    let Some(promtool) = promtool() else { return };
    let mut child = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && said.trim().is_empty(), "promtool: {said}\n{text}");
}

#[test]
fn a_crash_is_the_units_state_and_counted_by_its_category() {
    let (text, samples) = metrics_of("seed-k26-flashinfer-journal", &[]);
    let unit = "unit=\"sglang-k26.service\"";
    assert_eq!(samples[&format!("logdiag_launch_state{{{unit},state=\"crashed\"}}")], 1.0, "{text}");
    assert_eq!(samples[&format!("logdiag_launch_state{{{unit},state=\"ready\"}}")], 0.0, "{text}");
    let crashes = format!("logdiag_crashes_total{{{unit},category=\"flashinfer-unsupported-arch\"}}");
    assert_eq!(samples[&crashes], 1.0, "{text}");
    assert!(samples[&format!("logdiag_last_crash_timestamp_seconds{{{unit}}}")] > 1.7e9, "{text}");
    assert_eq!(samples[&format!("logdiag_hung{{{unit}}}")], 0.0, "{text}");
    assert_eq!(samples["logdiag_build_info{version=\"0.1.0\"}"], 1.0);
}

#[test]
fn a_collapse_shows_both_speeds_and_the_degraded_flag() {
    let (text, samples) = metrics_of("seed-glm5-throughput-collapse", &["--keep-watching"]);
    let unit = "unit=\"-\"";
    let speed = |launch: &str| {
        samples[&format!("logdiag_generation_throughput_tokens_per_second{{{unit},launch=\"{launch}\"}}")]
    };
    assert!(speed("previous") > 10.0 * speed("current"), "{text}");
    assert_eq!(samples[&format!("logdiag_degraded{{{unit}}}")], 1.0, "{text}");
    assert_eq!(samples.iter().filter(|(k, _)| k.starts_with("logdiag_crashes_total")).count(), 0, "{text}");
}

#[test]
fn an_earlier_crash_is_counted_once_and_the_current_launch_has_its_own_state() {
    // A new launch appended after a crash: the crash is history, counted
    // once however often the log is judged; the state is the new launch's.
    let (text, samples) = metrics_of("seed-glm5-appended-server-log", &["--keep-watching"]);
    let unit = "unit=\"-\"";
    assert_eq!(
        samples[&format!("logdiag_crashes_total{{{unit},category=\"flashinfer-unsupported-arch\"}}")],
        1.0,
        "{text}"
    );
    assert_eq!(samples[&format!("logdiag_launch_state{{{unit},state=\"crashed\"}}")], 0.0, "{text}");
    let states: f64 =
        samples.iter().filter(|(k, _)| k.starts_with("logdiag_launch_state")).map(|(_, v)| v).sum();
    assert_eq!(states, 1.0, "one state at a time: {text}");
}

#[test]
fn the_readme_alerting_rules_are_valid_for_promtool() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let marker = "<!-- promtool: rules -->\n```\n";
    let at = readme.find(marker).expect("the README's rules block") + marker.len();
    let rules = &readme[at..at + readme[at..].find("```").unwrap()];
    let Some(promtool) = promtool() else { return };
    let dir = TempDir::new("rules");
    let file = dir.write("logdiag.rules.yml", rules.as_bytes());
    let out = Command::new(promtool).args(["check", "rules"]).arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("4 rules found"), "{said}");
}
