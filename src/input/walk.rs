//! Turning command-line paths into sources, walking directories as ripgrep
//! walks them: symbolic links inside a directory are passed over unless
//! the user asks to follow them, a link loop or an unreadable folder is a
//! warning and the walk goes on, and files that are never logs (documents,
//! images, archives, model weights, hidden files) are left out with a note
//! saying why. What a file holds is judged later, when it is opened
//! ([`super::content`]).

use std::path::{Path, PathBuf};

use super::{lowercase_first, rotation, Found, InputError, Origin, Skipped, Source};

/// Whether a directory walk follows symbolic links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Symlinks {
    /// Pass over the links found in a directory (a link named on the
    /// command line is still read).
    #[default]
    Skip,
    /// Follow them, to files and folders alike (`-L`).
    Follow,
}

/// What the command-line paths come to.
#[derive(Debug, Default)]
pub struct Collected {
    /// The sources to read, in the order given (a directory's by path).
    pub sources: Vec<Source>,
    /// Files of walked directories that are not logs.
    pub skipped: Vec<Skipped>,
    /// Parts of walked directories that could not be walked (a link loop,
    /// a folder that cannot be read); the rest is read.
    pub warnings: Vec<InputError>,
    /// Directories that hold no log: an error, to report once the files
    /// left out are listed.
    pub without_logs: Vec<InputError>,
}

/// Turns command-line paths into sources: `-` is stdin, a directory is
/// walked (files sorted by path, rotated files joined), anything else must
/// be a readable file. A path that does not exist is an error; so is a
/// directory that holds no log ([`Collected::without_logs`]).
pub fn collect_sources(paths: &[String], symlinks: Symlinks) -> Result<Collected, InputError> {
    let mut collected = Collected::default();
    for arg in paths {
        if arg == "-" {
            collected.sources.push(Source::single("-".to_string(), Origin::Stdin, Found::Named));
            continue;
        }
        let path = Path::new(arg);
        let meta = std::fs::metadata(path).map_err(|e| InputError::io(arg, &e))?;
        if meta.is_dir() {
            walk_directory(arg, symlinks, &mut collected);
        } else {
            let origin = Origin::File(path.to_path_buf());
            collected.sources.push(Source::single(arg.clone(), origin, Found::Named));
        }
    }
    Ok(collected)
}

fn walk_directory(root: &str, symlinks: Symlinks, collected: &mut Collected) {
    let walker = walkdir::WalkDir::new(root).follow_links(symlinks == Symlinks::Follow).sort_by_file_name();
    let mut files: Vec<PathBuf> = Vec::new();
    let skipped_before = collected.skipped.len();
    let root_path = Path::new(root);
    let mut entries = walker.into_iter();
    while let Some(entry) = entries.next() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                collected.warnings.push(walk_warning(root, &e));
                continue;
            }
        };
        let path = entry.path();
        if entry.depth() > 0 && is_hidden(path, root_path) {
            if entry.file_type().is_dir() {
                entries.skip_current_dir();
            }
            continue;
        }
        let file_type = entry.file_type();
        if file_type.is_symlink() {
            // Only met when links are not followed.
            let why = "a symbolic link (-L follows links)".to_string();
            collected.skipped.push(Skipped { path: path.display().to_string(), why });
        } else if file_type.is_file() {
            match never_a_log(path) {
                Some(kind) => collected
                    .skipped
                    .push(Skipped { path: path.display().to_string(), why: format!("{kind}, not a log") }),
                None => files.push(path.to_path_buf()),
            }
        }
    }
    if files.is_empty() {
        let left_out = collected.skipped.len() - skipped_before;
        let problem = match left_out {
            0 => "directory holds no files".to_string(),
            n => format!("directory holds no logs ({n} file(s) left out; -v says why)"),
        };
        collected.without_logs.push(InputError { path: root.to_string(), problem });
        return;
    }
    collected.sources.extend(rotation::group(files));
}

/// A walk error as a warning naming the path it concerns.
fn walk_warning(root: &str, e: &walkdir::Error) -> InputError {
    let path = e.path().map(|p| p.display().to_string()).unwrap_or_else(|| root.to_string());
    if e.loop_ancestor().is_some() {
        return InputError { path, problem: "symbolic link loop, not followed".to_string() };
    }
    match e.io_error() {
        Some(io) => InputError::io(&path, io),
        None => InputError { path, problem: lowercase_first(&e.to_string()) },
    }
}

/// Hidden files and folders below the walked root (`.git`, editor swap
/// files) are not logs.
fn is_hidden(path: &Path, root: &Path) -> bool {
    path.strip_prefix(root)
        .map(|rel| rel.components().any(|c| c.as_os_str().to_string_lossy().starts_with('.')))
        .unwrap_or(false)
}

/// Extensions of files that are never logs, with what they are. `.txt`,
/// `.log`, `.json` and `.out` are not here: logs are saved under all of
/// them. A file not listed here is still looked at when it is opened.
const NEVER_LOGS: &[(&str, &[&str])] = &[
    (
        "documentation",
        &["md", "markdown", "rst", "adoc", "asciidoc", "html", "htm", "pdf", "doc", "docx", "odt", "rtf"],
    ),
    ("an image", &["png", "jpg", "jpeg", "gif", "bmp", "svg", "webp", "ico", "tif", "tiff", "heic"]),
    ("an archive", &["zip", "tar", "tgz", "tbz2", "txz", "7z", "rar", "jar", "whl", "deb", "rpm"]),
    ("a program or library", &["so", "o", "a", "exe", "dll", "dylib", "pyc", "class"]),
    ("model weights or tensors", &["safetensors", "gguf", "pt", "pth", "onnx", "npy", "npz"]),
];

/// Names of documents that come with software, bare or as `.txt`
/// (`README`, `LICENSE.txt`).
const DOCUMENT_NAMES: &[&str] = &["readme", "license", "licence", "copying", "changelog", "authors"];

/// What a file is, when its name says it is never a log.
fn never_a_log(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    let (stem, extension) = name.rsplit_once('.').unwrap_or((&name, ""));
    if DOCUMENT_NAMES.contains(&stem) && matches!(extension, "" | "txt") {
        return Some("documentation");
    }
    NEVER_LOGS.iter().find(|(_, extensions)| extensions.contains(&extension)).map(|(kind, _)| *kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_images_and_weights_are_never_logs() {
        for (name, kind) in [
            ("d/README.md", Some("documentation")),
            ("d/README", Some("documentation")),
            ("d/LICENSE.txt", Some("documentation")),
            ("d/plot.PNG", Some("an image")),
            ("d/model.safetensors", Some("model weights or tensors")),
            ("d/server.log", None),
            ("d/server.txt", None),
            ("d/journal.json", None),
            ("d/server.log.2.gz", None),
            ("d/readme-server.log", None),
            ("d/license.log", None),
        ] {
            assert_eq!(never_a_log(Path::new(name)), kind, "{name}");
        }
    }

    #[test]
    fn missing_path_is_a_one_line_error() {
        let err = collect_sources(&["/nonexistent/x.log".to_string()], Symlinks::Skip).unwrap_err();
        assert_eq!(err.to_string(), "/nonexistent/x.log: no such file or directory");
    }
}
