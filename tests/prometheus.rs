//! The metrics in the real engine: node_exporter's textfile collector
//! reads what `logdiag watch --metrics-file` writes, a real Prometheus
//! scrapes it on loopback ports, and its HTTP API answers with what the
//! founding incidents were: a crash by its category, a collapse, a hang.
//! Debian's `prometheus` and `prometheus-node-exporter` packages; `.ci/run`
//! installs them and sets LOGDIAG_REQUIRE_PROMETHEUS=1.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::*;

/// How long the engine may take to show a value (two scrapes at most, on
/// a machine with every core busy).
const PATIENCE: Duration = Duration::from_secs(90);

/// A child process killed when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback port free now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// GET `path` on loopback `port`: the status line's code and the body.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let code = response.split(' ').nth(1)?.parse().ok()?;
    let body = response.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
    Some((code, body))
}

/// Asks until `ready` holds of an answer (the process's own answer is
/// what the test waits on); panics with the last answer after
/// [`PATIENCE`].
fn wait_for(what: &str, port: u16, path: &str, ready: impl Fn(u16, &str) -> bool) -> String {
    let deadline = Instant::now() + PATIENCE;
    let mut last = None;
    loop {
        if let Some((code, body)) = get(port, path) {
            if ready(code, &body) {
                return body;
            }
            last = Some((code, body));
        }
        assert!(Instant::now() < deadline, "no {what} after {PATIENCE:?}; last answer: {last:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// An instant query's result: each series' labels and value.
fn query(
    port: u16,
    expr: &str,
    wanted: impl Fn(&[(serde_json::Value, f64)]) -> bool,
) -> Vec<(serde_json::Value, f64)> {
    let path = format!("/api/v1/query?query={}", encode(expr));
    let parse = |body: &str| -> Vec<(serde_json::Value, f64)> {
        let answer: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
        let series = answer["data"]["result"].as_array().cloned().unwrap_or_default();
        series
            .into_iter()
            .filter_map(|s| Some((s["metric"].clone(), s["value"][1].as_str()?.parse().ok()?)))
            .collect()
    };
    let body = wait_for(expr, port, &path, |code, body| code == 200 && wanted(&parse(body)));
    parse(&body)
}

/// Percent-encodes a query.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// node_exporter with only its textfile collector on `dir`, and a
/// Prometheus scraping it every second; both on free loopback ports.
/// Returns them and Prometheus' port.
fn engine(dir: &Path) -> Option<(Running, Running, u16)> {
    let exporter = ["/usr/bin/prometheus-node-exporter", "/usr/bin/node_exporter"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let prometheus = Some("/usr/bin/prometheus").filter(|p| Path::new(p).exists());
    let (Some(exporter), Some(prometheus)) = (exporter, prometheus) else {
        assert!(
            std::env::var_os("LOGDIAG_REQUIRE_PROMETHEUS").is_none(),
            "prometheus and prometheus-node-exporter are needed (apt install prometheus prometheus-node-exporter)"
        );
        eprintln!("skipped: prometheus or node_exporter not installed");
        return None;
    };
    let textfiles = dir.join("textfile");
    std::fs::create_dir_all(&textfiles).unwrap();
    let exporter_port = free_port();
    let node = Running(
        Command::new(exporter)
            .arg("--collector.disable-defaults")
            .arg("--collector.textfile")
            .arg(format!("--collector.textfile.directory={}", textfiles.display()))
            .arg(format!("--web.listen-address=127.0.0.1:{exporter_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for("node_exporter", exporter_port, "/metrics", |code, _| code == 200);
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: node\n    static_configs:\n      - targets: ['127.0.0.1:{exporter_port}']\n"
        ),
    )
    .unwrap();
    let port = free_port();
    let server = Running(
        Command::new(prometheus)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!("--storage.tsdb.path={}", dir.join("data").display()))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for("Prometheus ready", port, "/-/ready", |code, _| code == 200);
    Some((node, server, port))
}

/// Replays `case` through the agent (from stdin: it ends with the log)
/// into the textfile directory.
fn replay(dir: &Path, case: &str) {
    let file = dir.join("textfile").join("logdiag.prom");
    let log = std::fs::read(fixture(case)).unwrap();
    let out = run_stdin(&["watch", "-", "--keep-watching", "--metrics-file", file.to_str().unwrap()], &log);
    assert!(matches!(out.status.code(), Some(0 | 1 | 3 | 5 | 6)), "{}", stderr(&out));
}

#[test]
fn prometheus_scrapes_the_crash_the_collapse_and_the_hang() {
    let dir = TempDir::new("prometheus");
    let Some((_node, _server, port)) = engine(dir.path()) else { return };

    // A crash, by its category, on its unit.
    replay(dir.path(), "seed-k26-flashinfer-journal");
    let crashed = query(port, "logdiag_launch_state{state=\"crashed\"} == 1", |s| !s.is_empty());
    assert_eq!(crashed[0].0["unit"], "sglang-k26.service", "{crashed:?}");
    let crashes = query(port, "logdiag_crashes_total", |s| !s.is_empty());
    assert_eq!(crashes.len(), 1, "{crashes:?}");
    assert_eq!(crashes[0].0["category"], "flashinfer-unsupported-arch");
    assert_eq!(crashes[0].0["job"], "node", "scraped through node_exporter");
    assert_eq!(crashes[0].1, 1.0);

    // The throughput collapse, replacing it: degraded, with both speeds.
    replay(dir.path(), "seed-glm5-throughput-collapse");
    let degraded = query(port, "logdiag_degraded == 1", |s| !s.is_empty());
    assert_eq!(degraded[0].0["unit"], "-", "{degraded:?}");
    let ratio = query(
        port,
        "logdiag_generation_throughput_tokens_per_second{launch=\"current\"} / ignoring(launch) logdiag_generation_throughput_tokens_per_second{launch=\"previous\"}",
        |s| !s.is_empty(),
    );
    assert!(ratio[0].1 < 0.1, "the speed fell by more than 90%: {ratio:?}");
    let no_crash = query(port, "logdiag_launch_state{state=\"crashed\"} == 1", |s| s.is_empty());
    assert!(no_crash.is_empty(), "the file says only what the last replay judged");

    // A hang: the same log followed as a file, whose last progress line
    // had requests pending and nothing after it (watched until told). A
    // followed file's silence is timed from its last write: the copy is
    // written now and --hang-after is a second, so the hang comes once a
    // second has passed, whatever the checkout's age.
    let file = dir.path().join("textfile").join("logdiag.prom");
    let log = dir.write("followed.log", &std::fs::read(fixture("seed-glm5-throughput-collapse")).unwrap());
    let _watch = Running(
        Command::new(BIN)
            .args(["watch", log.to_str().unwrap(), "--keep-watching", "--hang-after", "1s"])
            .args(["--metrics-file", file.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let hung = query(port, "logdiag_hung == 1", |s| !s.is_empty());
    assert!(hung[0].0["unit"].as_str().unwrap().ends_with("followed.log"), "{hung:?}");
    let state = query(port, "logdiag_launch_state == 1", |s| s.len() == 1 && s[0].0["state"] == "hung");
    assert_eq!(state[0].0["state"], "hung");
}
