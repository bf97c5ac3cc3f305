//! Embeds the built-in rule files: writes `$OUT_DIR/builtin_rules.rs`, a
//! table of (path under rules/, contents) that the binary loads through the
//! same code as `--rules DIR`; the facts of their regexes, read off each
//! pattern's syntax tree by the binary's own code, so that starting the
//! binary does not parse them (`$OUT_DIR/builtin_regex_facts.rs`); and
//! lists the golden incidents in fixtures/ for the test suite
//! (`$OUT_DIR/fixture_cases.rs`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

#[allow(dead_code)]
#[path = "src/rules/regex_facts.rs"]
mod regex_facts;

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("rules");
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=src/rules/regex_facts.rs");
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
    write_regex_facts(&files, &out_dir);
    write_fixture_list(&out_dir);
}

/// Writes `$OUT_DIR/builtin_regex_facts.rs`: the facts of every `message`
/// and `not` regex of the built-in rules, sorted by pattern, for
/// `rules::regex_facts` to look up. A file that is not valid TOML is left
/// to the loader, which reports it (and `cargo test` fails).
fn write_regex_facts(files: &[PathBuf], out_dir: &Path) {
    let mut facts = BTreeMap::new();
    for path in files {
        let Ok(table) = fs::read_to_string(path).unwrap().parse::<toml::Table>() else {
            continue;
        };
        let Some(matcher) = table.get("match").and_then(toml::Value::as_table) else {
            continue;
        };
        for key in ["message", "not"] {
            if let Some(pattern) = matcher.get(key).and_then(toml::Value::as_str) {
                if let Some(found) = regex_facts::RegexFacts::parse(pattern) {
                    facts.insert(pattern.to_string(), found);
                }
            }
        }
    }
    let mut out = String::from(
        "/// The facts of the built-in rules' regexes, sorted by pattern.\npub static BUILTIN_REGEX_FACTS: &[(&str, StoredFacts)] = &[\n",
    );
    for (pattern, found) in &facts {
        let literals = match &found.literals {
            Some(set) => {
                format!("Some(&[{}])", set.iter().map(|l| byte_string(l)).collect::<Vec<_>>().join(", "))
            }
            None => "None".to_string(),
        };
        writeln!(
            out,
            "    ({pattern:?}, StoredFacts {{ literals: {literals}, digit_blind: {}, named_captures: {} }}),",
            found.digit_blind, found.named_captures
        )
        .unwrap();
    }
    out.push_str("];\n");
    fs::write(out_dir.join("builtin_regex_facts.rs"), out).unwrap();
}

/// `bytes` as a Rust byte string literal.
fn byte_string(bytes: &[u8]) -> String {
    let mut out = String::from("b\"");
    for &b in bytes {
        match b {
            b'"' | b'\\' => write!(out, "\\{}", b as char).unwrap(),
            b' '..=b'~' => out.push(b as char),
            _ => write!(out, "\\x{b:02x}").unwrap(),
        }
    }
    out.push('"');
    out
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
