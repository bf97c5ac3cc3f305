use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

pub const BIN: &str = env!("CARGO_BIN_EXE_logdiag");

/// The repository root (where fixtures/ and rules/ live).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fixture's input.log.
pub fn fixture(case: &str) -> PathBuf {
    root().join("fixtures").join(case).join("input.log")
}

/// Runs logdiag with `args`, stdin closed.
pub fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).current_dir(root()).stdin(Stdio::null()).output().expect("run logdiag")
}

/// Runs logdiag with `args`, writing `input` to its stdin.
pub fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn logdiag");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait logdiag");
    writer.join().unwrap();
    out
}

/// Runs logdiag with `args` and reads only the start of its output before
/// closing the pipe, as `| head -1` does.
pub fn run_into_closed_pipe(args: &[&str]) -> Output {
    use std::io::Read;
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn logdiag");
    let mut first = [0u8; 64];
    child.stdout.as_mut().unwrap().read_exact(&mut first).expect("some output");
    drop(child.stdout.take());
    child.wait_with_output().expect("wait logdiag")
}

/// The JSON report of a run with `--format json`.
pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\n{}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh, empty temporary folder, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "logdiag-test-{}-{}-{name}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The wide encodings PowerShell and `iconv` write.
pub const WIDE_ENCODINGS: [&str; 4] = ["UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"];

/// `text` in one of [`WIDE_ENCODINGS`], with or without a byte-order mark.
pub fn widened(text: &str, encoding: &str, mark: bool) -> Vec<u8> {
    let text = if mark { format!("\u{feff}{text}") } else { text.to_string() };
    let mut bytes = Vec::new();
    match encoding {
        "UTF-16LE" => text.encode_utf16().for_each(|u| bytes.extend(u.to_le_bytes())),
        "UTF-16BE" => text.encode_utf16().for_each(|u| bytes.extend(u.to_be_bytes())),
        "UTF-32LE" => text.chars().for_each(|c| bytes.extend((c as u32).to_le_bytes())),
        _ => text.chars().for_each(|c| bytes.extend((c as u32).to_be_bytes())),
    }
    bytes
}

/// Makes a named pipe at `path` with the real mkfifo.
pub fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("run mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}
