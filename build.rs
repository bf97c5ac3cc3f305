//! Embeds the built-in rule files: writes `$OUT_DIR/builtin_rules.rs`, a
//! table of (path under rules/, contents) that the binary loads through the
//! same code as `--rules DIR`; and lists the golden incidents in fixtures/
//! for the test suite (`$OUT_DIR/fixture_cases.rs`).

use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("rules");
    println!("cargo:rerun-if-changed=rules");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut out = String::from("/// Built-in rule files: (path under rules/, contents).\npub static BUILTIN_RULES: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let rel = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        out.push_str(&format!("    ({rel:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    fs::write(out_dir.join("builtin_rules.rs"), out).unwrap();
    write_fixture_list(&out_dir);
}

/// Writes `$OUT_DIR/fixture_cases.rs`: one `name => "folder"` pair per
/// golden incident in fixtures/, for the test suite to make each its own
/// test (one failure names its fixture, and the others still run).
fn write_fixture_list(out_dir: &Path) {
    let fixtures = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("fixtures");
    println!("cargo:rerun-if-changed=fixtures");
    let mut cases: Vec<String> = fs::read_dir(&fixtures)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().join("case.json").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    let mut out = String::from("fixture_tests! {\n");
    for case in &cases {
        let name: String = case
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
            .collect();
        out.push_str(&format!("    fixture_{name} => {case:?},\n"));
    }
    out.push_str("}\n");
    fs::write(out_dir.join("fixture_cases.rs"), out).unwrap();
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "toml") {
            files.push(path);
        }
    }
}
