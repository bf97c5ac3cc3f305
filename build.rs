//! Embeds the built-in rule files: writes `$OUT_DIR/builtin_rules.rs`, a
//! table of (path under rules/, contents) that the binary loads through the
//! same code as `--rules DIR`; the facts of their regexes, read off each
//! pattern's syntax tree by the binary's own code, so that starting the
//! binary does not parse them (`$OUT_DIR/builtin_regex_facts.rs`); and
//! lists the golden incidents in fixtures/ for the test suite
//! (`$OUT_DIR/fixture_cases.rs`); and gathers the labelled lines the
//! wording model learns from (`$OUT_DIR/builtin_wording.rs`, see
//! src/rules/wording.rs). It also asks the linker to pack the binary's
//! relative relocations where the C library can load them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

/// Links the binary with its relative relocations packed (`-z
/// pack-relative-relocs`, DT_RELR). A position-independent executable
/// lists one for every pointer in its static data, mostly the
/// dependencies' tables: 0.9 MB in the older format, all read when it
/// starts and resident from then on (packing them lowered the peak of a
/// run on one file by 0.6-0.8 MiB). Packed, they take 10 KB. Only when
/// building for this machine and its glibc is 2.36 or later (`getconf
/// GNU_LIBC_VERSION`): an older one refuses to load such a binary.
fn pack_relative_relocations() {
    let var = |name: &str| env::var(name).unwrap_or_default();
    let for_this_machine = var("TARGET") == var("HOST");
    let gnu_linux = var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu";
    if !(for_this_machine && gnu_linux) {
        return;
    }
    let Ok(output) = std::process::Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return;
    };
    let printed = String::from_utf8_lossy(&output.stdout);
    let version = printed.trim().strip_prefix("glibc ").unwrap_or("");
    let mut numbers = version.split('.').map(|n| n.parse::<u32>().unwrap_or(0));
    let (major, minor) = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    if (major, minor) >= (2, 36) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

#[allow(dead_code)]
#[path = "src/rules/regex_facts.rs"]
mod regex_facts;

#[path = "src/rules/wording/features.rs"]
mod wording_features;

fn main() {
    pack_relative_relocations();
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("rules");
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=src/rules/regex_facts.rs");
    println!("cargo:rerun-if-changed=src/rules/wording/features.rs");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut out = String::from("/// Built-in rule files: (path under rules/, contents).\npub(crate) static BUILTIN_RULES: &[(&str, &str)] = &[\n");
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
    write_wording(&files, &out_dir);
}

/// Writes `$OUT_DIR/builtin_wording.rs`: the catalogue's labelled lines,
/// (text, category) with an empty category for harmless wording, that
/// `rules::wording` learns from: each rule's samples (its category; none
/// for benign and marker rules; rules whose category a line decides, like
/// the fate rules, teach nothing), its counter-samples (harmless), and
/// the fixtures' evidence (the case's root cause) and benign lines.
fn write_wording(files: &[PathBuf], out_dir: &Path) {
    let mut examples: Vec<(String, String)> = Vec::new();
    let strings = |value: Option<&toml::Value>| -> Vec<String> {
        let list = value.and_then(toml::Value::as_array).map(Vec::as_slice).unwrap_or_default();
        list.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()
    };
    for path in files {
        let Ok(table) = fs::read_to_string(path).unwrap().parse::<toml::Table>() else {
            continue;
        };
        let role = table.get("role").and_then(toml::Value::as_str).unwrap_or("");
        let category = table.get("category").and_then(toml::Value::as_str);
        let test = table.get("test").and_then(toml::Value::as_table);
        let label = match (role, category) {
            ("benign" | "marker", _) => Some(String::new()),
            (_, Some(category)) => Some(category.to_string()),
            _ => None,
        };
        if let Some(label) = label {
            for sample in strings(test.and_then(|t| t.get("samples"))) {
                examples.push((sample, label.clone()));
            }
        }
        for counter in strings(test.and_then(|t| t.get("counter_samples"))) {
            examples.push((counter, String::new()));
        }
    }
    let fixtures = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("fixtures");
    let mut cases: Vec<PathBuf> = fs::read_dir(&fixtures)
        .map(|entries| {
            entries.flatten().map(|e| e.path().join("case.json")).filter(|p| p.is_file()).collect()
        })
        .unwrap_or_default();
    cases.sort();
    for case in cases {
        println!("cargo:rerun-if-changed={}", case.display());
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&fs::read_to_string(&case).unwrap()) else {
            continue;
        };
        let list = |key: &str| -> Vec<String> {
            let values = json[key].as_array().map(Vec::as_slice).unwrap_or_default();
            values.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()
        };
        let cause = json["root_cause"].as_str().unwrap_or("");
        if json["verdict"] == "crash" {
            for evidence in list("evidence") {
                examples.push((evidence, cause.to_string()));
            }
        }
        for benign in list("benign") {
            examples.push((benign, String::new()));
        }
    }
    let mut out = String::from(
        "/// The catalogue's labelled lines: (text, category; empty for harmless wording).\n#[cfg(test)]\npub(crate) static BUILTIN_WORDING: &[(&str, &str)] = &[\n",
    );
    for (text, label) in &examples {
        writeln!(out, "    ({text:?}, {label:?}),").unwrap();
    }
    out.push_str("];\n");
    write_word_counts(&examples, &mut out);
    fs::write(out_dir.join("builtin_wording.rs"), out).unwrap();
}

/// Counts the labelled lines' words as `WordingModel::train` does, and
/// writes the counts: the classes in order of first use, each class's
/// number of words, the number of distinct words, and for each word,
/// sorted, how often each class uses it.
fn write_word_counts(examples: &[(String, String)], out: &mut String) {
    let mut classes: Vec<&str> = Vec::new();
    let mut totals: Vec<u32> = Vec::new();
    let mut counts: BTreeMap<String, BTreeMap<usize, u32>> = BTreeMap::new();
    for (text, label) in examples {
        if wording_features::NOT_TAUGHT.contains(&label.as_str()) {
            continue;
        }
        let class = match classes.iter().position(|c| c == label) {
            Some(class) => class,
            None => {
                classes.push(label);
                totals.push(0);
                classes.len() - 1
            }
        };
        for word in wording_features::features(text) {
            *counts.entry(word).or_default().entry(class).or_default() += 1;
            totals[class] += 1;
        }
    }
    writeln!(out, "/// The classes of the counts below (empty: harmless wording).").unwrap();
    writeln!(out, "static BUILTIN_CLASSES: &[&str] = &{classes:?};").unwrap();
    writeln!(out, "/// How many words each class's lines hold.").unwrap();
    writeln!(out, "static BUILTIN_TOTALS: &[u32] = &{totals:?};").unwrap();
    writeln!(out, "/// How many distinct words the lines hold.").unwrap();
    writeln!(out, "static BUILTIN_VOCABULARY: u32 = {};", counts.len()).unwrap();
    writeln!(out, "/// For each word, sorted: (class, count) for the classes that use it.").unwrap();
    writeln!(out, "static BUILTIN_COUNTS: &[(&str, &[(u8, u32)])] = &[").unwrap();
    for (word, by_class) in &counts {
        let row: Vec<String> = by_class.iter().map(|(class, count)| format!("({class}, {count})")).collect();
        writeln!(out, "    ({word:?}, &[{}]),", row.join(", ")).unwrap();
    }
    out.push_str("];\n");
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
        "/// The facts of the built-in rules' regexes, sorted by pattern.\npub(crate) static BUILTIN_REGEX_FACTS: &[(&str, StoredFacts)] = &[\n",
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
