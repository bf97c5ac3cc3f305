//! Rotated logs: `x.log`, `x.log.1`, `x.log.2.gz` (logrotate's numbering)
//! or `x.log-20250525.zst` (`dateext`) in one directory are one log. They
//! become one source whose parts are read oldest first: the highest number
//! first, then dates in order, the current file last.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Found, Origin, Part, Source};

/// Where a file stands in its rotation: older files sort first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Age {
    /// `x.log.N`: older the higher N (so the key is reversed).
    Numbered(std::cmp::Reverse<u64>),
    /// `x.log-YYYYMMDD`: older the earlier the date.
    Dated(String),
    /// `x.log` itself.
    Current,
}

/// Groups the files of a walked directory into sources (found by the walk), rotated files of
/// one log together. Sources come out in path order of their logs.
pub(super) fn group(files: Vec<PathBuf>) -> Vec<Source> {
    let mut logs: BTreeMap<PathBuf, Vec<(Age, PathBuf)>> = BTreeMap::new();
    for file in files {
        let (base, age) = rotation_of(&file);
        logs.entry(base).or_default().push((age, file));
    }
    logs.into_iter()
        .map(|(base, mut members)| {
            members.sort();
            let parts: Vec<Part> = members
                .into_iter()
                .map(|(_, path)| Part { name: path.display().to_string(), origin: Origin::File(path) })
                .collect();
            let name = if parts.len() == 1 { parts[0].name.clone() } else { base.display().to_string() };
            Source { name, parts, found: Found::Walked }
        })
        .collect()
}

/// The log a file belongs to and its place in the rotation.
fn rotation_of(file: &Path) -> (PathBuf, Age) {
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let plain = [".gz", ".zst", ".zstd"].iter().find_map(|ext| name.strip_suffix(ext)).unwrap_or(&name);
    let numbered = plain.rsplit_once('.').filter(|(stem, n)| {
        !stem.is_empty() && !n.is_empty() && n.len() <= 4 && n.bytes().all(|b| b.is_ascii_digit())
    });
    if let Some((stem, n)) = numbered {
        return (file.with_file_name(stem), Age::Numbered(std::cmp::Reverse(n.parse().unwrap_or(0))));
    }
    let dated = plain.rsplit_once('-').filter(|(stem, date)| {
        let digits: String = date.chars().filter(char::is_ascii_digit).collect();
        !stem.is_empty() && digits.len() >= 8 && date.bytes().all(|b| b.is_ascii_digit() || b == b'-')
    });
    if let Some((stem, date)) = dated {
        return (file.with_file_name(stem), Age::Dated(date.to_string()));
    }
    if plain.len() < name.len() {
        // `x.log.gz` alone: a compressed log, not a rotation of `x.log`…
        // unless `x.log` exists, in which case it groups with it below.
        return (file.with_file_name(plain), Age::Numbered(std::cmp::Reverse(0)));
    }
    (file.to_path_buf(), Age::Current)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(sources: &[Source]) -> Vec<(String, Vec<String>)> {
        sources.iter().map(|s| (s.name.clone(), s.parts.iter().map(|p| p.name.clone()).collect())).collect()
    }

    #[test]
    fn rotated_files_are_one_source_oldest_first() {
        let files = [
            "d/x.log",
            "d/x.log.1",
            "d/x.log.2.gz",
            "d/x.log.10.zst",
            "d/other.txt",
            "d/y.log-20250101.gz",
            "d/y.log-20250102",
            "d/y.log",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let sources = group(files);
        assert_eq!(
            names(&sources),
            vec![
                ("d/other.txt".to_string(), vec!["d/other.txt".to_string()]),
                (
                    "d/x.log".to_string(),
                    vec![
                        "d/x.log.10.zst".into(),
                        "d/x.log.2.gz".into(),
                        "d/x.log.1".into(),
                        "d/x.log".into()
                    ]
                ),
                (
                    "d/y.log".to_string(),
                    vec!["d/y.log-20250101.gz".into(), "d/y.log-20250102".into(), "d/y.log".into()]
                ),
            ]
        );
    }

    #[test]
    fn unrelated_numbers_are_not_rotations_of_nothing() {
        let sources = group(vec![PathBuf::from("d/run.2024"), PathBuf::from("d/app.log.gz")]);
        assert_eq!(sources.len(), 2);
        assert_eq!(sources[0].parts.len(), 1);
    }
}
