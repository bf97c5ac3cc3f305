//! The `logdiag` binary: everything lives in the library's `cli` module.
//!
//! A bug that panics must not look like a diagnosis to a script: the panic
//! is reported on one line and the exit code is 2, never 0 (or Rust's 101).

fn main() {
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let message = logdiag::report::escape::for_terminal_lines(&message).into_owned();
        eprintln!("logdiag: internal error{location}: {message} (please report it)");
    }));
    let code = std::panic::catch_unwind(|| {
        // Lets the tests check, with the real binary, what a bug looks like.
        if std::env::var_os("LOGDIAG_TEST_INTERNAL_ERROR").is_some() {
            panic!("internal error requested by LOGDIAG_TEST_INTERNAL_ERROR");
        }
        logdiag::cli::run(std::env::args_os())
    })
    .unwrap_or(logdiag::exit::Exit::Error.code());
    std::process::exit(code);
}
