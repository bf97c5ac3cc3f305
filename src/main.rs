//! The `logdiag` binary: everything lives in the library's `cli` module.

fn main() {
    std::process::exit(logdiag::cli::run(std::env::args_os()));
}
