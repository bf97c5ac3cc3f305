//! The house's rooms stay the size of their halls: no file in `src/` over
//! 600 lines (not counting its `#[cfg(test)]` modules and `tests.rs`
//! files), no function over 100 lines. A file that grows past them is
//! split by concept, as the modules' docs describe.

use std::path::{Path, PathBuf};

use crate::util::*;

const FILE_LINES: usize = 600;
const FUNCTION_LINES: usize = 100;

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            found.push(path);
        }
    }
}

/// The text with string, character and comment contents blanked (braces
/// in them do not count), line for line.
fn code_only(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !chars.get(i.wrapping_sub(1)).is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) == Some(&'"') {
                i += 2 + hashes;
                while i < chars.len()
                    && !(chars[i] == '"'
                        && chars[i + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes)
                {
                    out.push(if chars[i] == '\n' { '\n' } else { ' ' });
                    i += 1;
                }
                i += 1 + hashes;
                continue;
            }
        }
        if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                out.push(if chars.get(i) == Some(&'\n') { '\n' } else { ' ' });
                i += 1;
            }
            i += 1;
            continue;
        }
        if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), not a lifetime.
            let literal_end = match next {
                Some('\\') => chars[i + 2..].iter().position(|&e| e == '\'').map(|p| i + 2 + p),
                Some(_) if chars.get(i + 2) == Some(&'\'') => Some(i + 2),
                _ => None,
            };
            if let Some(end) = literal_end {
                i = end + 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out.lines().map(str::to_string).collect()
}

/// The line ranges (first, last, from 0) of the block opened on or after
/// line `from`, by brace depth.
fn block_end(lines: &[String], from: usize) -> Option<usize> {
    let mut depth = 0i64;
    let mut opened = false;
    for (at, line) in lines.iter().enumerate().skip(from) {
        if !opened && line.contains(';') && !line.contains('{') {
            return None;
        }
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            return Some(at);
        }
    }
    None
}

#[test]
fn no_file_or_function_outgrows_its_room() {
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    assert!(files.len() > 50, "{} files", files.len());
    let function =
        regex::Regex::new(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)").unwrap();
    let mut too_big = Vec::new();
    for path in files {
        let lines = code_only(&std::fs::read_to_string(&path).unwrap());
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        let mut counted = 0;
        let mut at = 0;
        while at < lines.len() {
            if lines[at].trim_start().starts_with("#[cfg(test)]") {
                at = block_end(&lines, at + 1).map_or(at + 1, |end| end + 1);
                continue;
            }
            if let Some(found) = function.captures(&lines[at]) {
                if let Some(end) = block_end(&lines, at) {
                    if end + 1 - at > FUNCTION_LINES {
                        too_big.push(format!(
                            "{name}:{}: fn {} is {} lines",
                            at + 1,
                            &found[6],
                            end + 1 - at
                        ));
                    }
                }
            }
            counted += 1;
            at += 1;
        }
        if counted > FILE_LINES {
            too_big.push(format!("{name} is {counted} lines"));
        }
    }
    assert!(too_big.is_empty(), "split by concept:\n{}", too_big.join("\n"));
}
