//! Peak memory of the real binary on the inputs that used to make it grow:
//! many small files, many runs with megabyte-long crash lines, a large
//! newest-first journal, a pathological user rule. Each must stay under
//! the bound the README states (a few MiB of buffers plus what is kept per
//! file and per run, never a copy of the input).

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::*;

/// The README's bound for every input below.
const BOUND_MIB: u64 = 128;

/// A line of sglang's decode statistics, to fill a log with.
const DECODE_LINE: &str = "[2026-05-25 20:18:20 TP0] Decode batch. #running-req: 8, #token: 100, token usage: 0.01, gen throughput (token/s): 236.41, #queue-req: 0";

/// Runs logdiag on `args` and returns its exit code and peak resident
/// memory in MiB. The measuring is done by [`peak_helper`] in a fresh copy
/// of this test binary: a process's peak as wait4(2) reports it includes
/// the memory of the process that spawned it (Linux counts the image that
/// `exec` replaces), and this binary, running many tests at once, can be
/// larger than the bound by itself.
fn peak_mib(args: &[&str]) -> (i32, u64) {
    peak_mib_reading(args, None)
}

/// [`peak_mib`], with the file `stdin` as logdiag's standard input.
fn peak_mib_reading(args: &[&str], stdin: Option<&std::path::Path>) -> (i32, u64) {
    let helper = std::env::current_exe().unwrap();
    let mut command = Command::new(helper);
    if let Some(path) = stdin {
        command.env(PEAK_STDIN, path);
    }
    let out = command
        .args(["--exact", "memory::peak_helper", "--ignored", "--nocapture", "--test-threads=1"])
        .env(PEAK_ARGS, args.join("\x1f"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The harness prints its own words around it on the same line.
    let line = stdout.split("peak: ").nth(1).and_then(|rest| rest.lines().next());
    let line = line.unwrap_or_else(|| panic!("no peak: {stdout}"));
    let (code, kib) = line.split_once(' ').unwrap();
    (code.parse().unwrap(), kib.parse::<u64>().unwrap() / 1024)
}

/// The arguments [`peak_helper`] runs logdiag with, separated by U+001F.
const PEAK_ARGS: &str = "LOGDIAG_PEAK_ARGS";
/// A file [`peak_helper`] gives logdiag as its standard input.
const PEAK_STDIN: &str = "LOGDIAG_PEAK_STDIN";

/// Runs logdiag with the arguments in [`PEAK_ARGS`] and prints `peak: CODE
/// KIB` (from wait4(2)'s `ru_maxrss`, in KiB on Linux).
#[test]
#[ignore = "a helper: the memory tests run it in a process of its own"]
// The child is waited for with wait4(2), which std's `Child` cannot call.
#[allow(clippy::zombie_processes)]
fn peak_helper() {
    let Ok(args) = std::env::var(PEAK_ARGS) else { return };
    let stdin = match std::env::var_os(PEAK_STDIN) {
        Some(path) => Stdio::from(std::fs::File::open(path).unwrap()),
        None => Stdio::null(),
    };
    let child = Command::new(BIN)
        .args(args.split('\x1f'))
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, not yet waited for; both pointers
    // point to live values of the types wait4 expects.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    println!("peak: {code} {}", usage.ru_maxrss);
}

#[test]
fn ten_thousand_small_files() {
    let dir = TempDir::new("many-files");
    for i in 0..10_000 {
        dir.write(&format!("logs/{:02}/f{i}.log", i % 100), format!("hi {i}\n").as_bytes());
    }
    let logs = dir.path().join("logs");
    for format in ["text", "json"] {
        let (code, mib) = peak_mib(&["--format", format, logs.to_str().unwrap()]);
        assert_eq!(code, 0);
        assert!(mib < BOUND_MIB, "{format}: {mib} MiB");
    }
}

#[test]
fn many_runs_with_megabyte_crash_lines() {
    let dir = TempDir::new("long-runs");
    let path = dir.path().join("runs.log");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let padding = "y".repeat(1_000_000);
    for _ in 0..128 {
        writeln!(file, "[2026-05-25 20:17:58] server_args=ServerArgs(model_path='/m', port=30000)").unwrap();
        writeln!(file, "RuntimeError: FlashInfer requires GPUs with sm75 or higher {padding}").unwrap();
    }
    drop(file);
    for args in [&["--format", "json"][..], &["--last"][..]] {
        let mut all = args.to_vec();
        all.push(path.to_str().unwrap());
        let (code, mib) = peak_mib(&all);
        assert_eq!(code, 1);
        assert!(mib < BOUND_MIB, "{args:?}: {mib} MiB");
    }
}

#[test]
fn a_large_newest_first_journal() {
    let dir = TempDir::new("reversed-big");
    let path = dir.path().join("reversed.log");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    // 64 MiB newest first (eight times what is held in memory), the crash
    // at the top.
    let seed = std::fs::read_to_string(fixture("seed-k26-flashinfer-journal")).unwrap();
    for line in seed.lines().rev() {
        writeln!(file, "{line}").unwrap();
    }
    for i in 0..500_000u64 {
        let seconds = 1000 - i / 1000;
        writeln!(
            file,
            "May 25 19:{:02}:{:02} gpu-node-1 python[71283]: {DECODE_LINE}",
            seconds / 60 % 60,
            seconds % 60
        )
        .unwrap();
    }
    drop(file);
    assert!(std::fs::metadata(&path).unwrap().len() > 64 << 20);
    let (code, mib) = peak_mib(&[path.to_str().unwrap()]);
    assert_eq!(code, 1, "the crash at the top is found in time order");
    assert!(mib < BOUND_MIB, "{mib} MiB");
}

#[test]
fn a_pathological_user_rule() {
    let dir = TempDir::new("evil-rule");
    dir.write(
        "site/slow.toml",
        b"role = \"cause\"\ncategory = \"cuda-oom\"\ntitle = \"t\"\nhint = \"h\"\n[match]\nmessage = '[ab]*a[ab]{60}[ab]*a[ab]{60}X'\n[test]\nsamples = ['ab']\n",
    );
    let (code, mib) = peak_mib(&[
        "--rules",
        dir.path().join("site").to_str().unwrap(),
        fixture("seed-k26-flashinfer-journal").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "refused");
    assert!(mib < BOUND_MIB, "{mib} MiB");
}

/// A journal of a boot with many short-lived units (cron jobs, sessions,
/// transient runs), one in ten failing: memory does not grow with the
/// number of units.
#[test]
fn thousands_of_units() {
    let dir = TempDir::new("many-units");
    let journal = |units: u32| {
        let path = dir.path().join(format!("units-{units}.log"));
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        // The same number of lines whatever the number of units.
        let per_unit = 40_000 / units;
        for unit in 0..units {
            let name = format!("run-u{unit}.service");
            writeln!(file, "Nov 30 10:00:00 h systemd[1]: Started {name} - /usr/bin/job {unit}.").unwrap();
            for line in 0..per_unit {
                writeln!(file, "Nov 30 10:00:01 h job[{}]: step {line} of unit {unit}", 10_000 + unit)
                    .unwrap();
            }
            if unit % 10 == 0 {
                writeln!(file, "Nov 30 10:00:02 h systemd[1]: {name}: Main process exited, code=exited, status=1/FAILURE")
                    .unwrap();
                writeln!(file, "Nov 30 10:00:02 h systemd[1]: {name}: Failed with result 'exit-code'.")
                    .unwrap();
            } else {
                writeln!(file, "Nov 30 10:00:02 h systemd[1]: {name}: Deactivated successfully.").unwrap();
            }
        }
        path
    };
    let few = journal(100);
    let many = journal(20_000);
    let (code_few, few_mib) = peak_mib(&["--format", "json", few.to_str().unwrap()]);
    let (code_many, many_mib) = peak_mib(&["--format", "json", many.to_str().unwrap()]);
    assert_eq!((code_few, code_many), (3, 3), "failed units with no cause named");
    assert!(many_mib < BOUND_MIB, "{many_mib} MiB");
    assert!(many_mib <= few_mib + 16, "20,000 units: {many_mib} MiB; 100 units: {few_mib} MiB");
}

/// An agent's weeks, compressed: three units of a node relaunched every
/// quarter of an hour for four weeks (8,064 launches; `LOGDIAG_AGENT_WEEKS`
/// sets another span), one launch in five crashing with a CUDA OOM, the
/// rest serving and stopping. The agent (`watch --each-unit
/// --metrics-file`) reads it all and stays under the bound the README
/// states for it, as it does over any number of weeks: what it keeps is
/// capped per unit and per source ([`logdiag::engine::RunCaps::AGENT`]), and
/// so are the processes it remembers.
#[test]
fn an_agent_over_compressed_weeks_of_launches() {
    let dir = TempDir::new("agent-week");
    let path = dir.path().join("week.journal");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let units = ["sglang-a.service", "sglang-b.service", "vllm-c.service"];
    let mut pid = 1000;
    let weeks: usize = std::env::var("LOGDIAG_AGENT_WEEKS").ok().and_then(|w| w.parse().ok()).unwrap_or(4);
    for launch in 0..(weeks * 7 * 24 * 4) {
        // Days of 28-day months, so that every date is one.
        let days = launch / 96;
        let (year, month, day) = (2026 + days / 336, 1 + days / 28 % 12, 1 + days % 28);
        let minute = launch % 96 * 15;
        let at = |second: u32| {
            format!("{year}-{month:02}-{day:02}T{:02}:{:02}:{second:02}+0000", minute / 60, minute % 60)
        };
        for (u, unit) in units.iter().enumerate() {
            pid += 1;
            let w = |second, text: &str| format!("{} node-1 python3[{pid}]: {text}", at(second));
            writeln!(file, "{} node-1 systemd[1]: Started {unit} - inference server {u}.", at(0)).unwrap();
            writeln!(file, "{}", w(1, "[2026-11-30 10:00:01 TP0] Load weight begin. avail mem=78.00 GB"))
                .unwrap();
            writeln!(file, "{}", w(2, "[2026-11-30 10:00:02 TP0] Load weight end. avail mem=40.00 GB"))
                .unwrap();
            writeln!(file, "{}", w(3, "[2026-11-30 10:00:03] The server is fired up and ready to roll!"))
                .unwrap();
            for batch in 0..12 {
                let line = format!("[2026-11-30 10:00:{:02} TP0] Decode batch. #running-req: 32, #token: {}, token usage: 0.30, cuda graph: True, gen throughput (token/s): {}.00, #queue-req: 0", 4 + batch, 4096 + batch * 64, 2000 + batch * 7);
                writeln!(file, "{}", w(4 + batch, &line)).unwrap();
            }
            if (launch + u) % 5 == 0 {
                writeln!(file, "{}", w(20, "Traceback (most recent call last):")).unwrap();
                writeln!(file, "{}", w(20, "  File \"/srv/serve.py\", line 9, in forward")).unwrap();
                writeln!(
                    file,
                    "{}",
                    w(20, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
                )
                .unwrap();
                writeln!(
                    file,
                    "{} node-1 systemd[1]: {unit}: Main process exited, code=exited, status=1/FAILURE",
                    at(21)
                )
                .unwrap();
                writeln!(file, "{} node-1 systemd[1]: {unit}: Failed with result 'exit-code'.", at(21))
                    .unwrap();
            } else {
                writeln!(file, "{} node-1 systemd[1]: Stopping {unit} - inference server {u}...", at(40))
                    .unwrap();
                writeln!(file, "{} node-1 systemd[1]: {unit}: Deactivated successfully.", at(41)).unwrap();
                writeln!(file, "{} node-1 systemd[1]: Stopped {unit} - inference server {u}.", at(41))
                    .unwrap();
            }
        }
    }
    drop(file);
    let metrics = dir.path().join("logdiag.prom");
    let args = ["watch", "-", "--each-unit", "--metrics-file", metrics.to_str().unwrap()];
    let (code, mib) = peak_mib_reading(&args, Some(&path));
    assert!(matches!(code, 0 | 1 | 3), "exit {code}");
    eprintln!("agent over {weeks} compressed week(s): peak {mib} MiB");
    assert!(mib < AGENT_BOUND_MIB, "{mib} MiB");
    let text = std::fs::read_to_string(&metrics).unwrap();
    for unit in units {
        assert!(text.contains(&format!("logdiag_launch_state{{unit=\"{unit}\"")), "{unit}: {text}");
    }
}

/// The README's bound for an agent, however long it runs.
const AGENT_BOUND_MIB: u64 = 64;

/// A directory's peak does not grow with the threads allowed: at most
/// `MOST_READERS` (4) files are read at once, however many cores there are.
#[test]
fn a_directory_read_with_many_threads_allowed_reads_four_files_at_once() {
    let dir = TempDir::new("many-readers");
    for n in 0..8 {
        let mut file =
            std::io::BufWriter::new(std::fs::File::create(dir.path().join(format!("node{n}.log"))).unwrap());
        for _ in 0..30_000 {
            writeln!(file, "{DECODE_LINE}").unwrap();
        }
    }
    let path = dir.path().to_str().unwrap();
    let (code, four) = peak_mib(&["-j", "4", path]);
    assert_eq!(code, 0);
    let (code, many) = peak_mib(&["-j", "64", path]);
    assert_eq!(code, 0);
    // Each file read at once costs about 2.6 MiB: eight at once would be
    // 10 MiB more than four.
    assert!(many <= four + 2, "-j 64: {many} MiB, -j 4: {four} MiB");
}
