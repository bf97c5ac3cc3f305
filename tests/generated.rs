//! `logdiag completions SHELL` and `logdiag man`: generated from the flags,
//! so they name every subcommand and flag.

use crate::util::{run, stdout, TempDir};

const SUBCOMMANDS: [&str; 6] = ["rules", "test", "watch", "events", "completions", "man"];

#[test]
fn each_completion_script_names_the_subcommands_and_flags() {
    // How each shell's script starts, and how it spells a long flag.
    let spellings = [
        ("bash", "_logdiag() {", "--"),
        ("zsh", "#compdef logdiag", "--"),
        ("fish", "# Print an optspec", "-l "),
    ];
    for (shell, start, long_flag) in spellings {
        let out = run(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = stdout(&out);
        assert!(script.starts_with(start), "{shell} script starts {:?}", &script[..40.min(script.len())]);
        for name in SUBCOMMANDS {
            assert!(script.contains(name), "{shell} script lacks the subcommand {name}");
        }
        for flag in ["format", "last", "unit", "verbose", "rules", "junit", "bless", "until", "hang-after"] {
            assert!(script.contains(&format!("{long_flag}{flag}")), "{shell} script lacks --{flag}");
        }
        assert!(script.contains("markdown"), "{shell} script lacks the markdown format");
    }
}

#[test]
fn the_bash_script_completes_subcommands_and_flags_in_bash() {
    let dir = TempDir::new("bash-completion");
    let script = dir.write("logdiag.bash", &run(&["completions", "bash"]).stdout);
    // What bash offers for `logdiag wat<TAB>` and `logdiag test --ju<TAB>`.
    let offered = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c"])
        .arg(
            r#"source "$1" || exit 9
               COMP_WORDS=(logdiag wat); COMP_CWORD=1; _logdiag logdiag wat logdiag; echo "${COMPREPLY[*]}"
               COMP_WORDS=(logdiag test --ju); COMP_CWORD=2; _logdiag logdiag --ju test; echo "${COMPREPLY[*]}""#,
        )
        .arg("bash")
        .arg(&script)
        .output()
        .expect("run bash");
    assert_eq!(String::from_utf8_lossy(&offered.stdout), "watch\n--junit\n");
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = run(&["completions", "cmd.exe"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_man_page_is_roff_with_a_name_section() {
    let out = run(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    let page = stdout(&out);
    assert!(page.lines().any(|l| l.starts_with(".TH logdiag 1")), "no .TH title line:\n{page}");
    let name = page.lines().skip_while(|l| *l != ".SH NAME").nth(1).unwrap_or_default();
    assert!(name.starts_with(r"logdiag \- "), "NAME section: {name:?}");
    for section in [".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(page.contains(section), "no {section}");
    }
    assert!(page.contains(r"\-\-format"), "--format is not documented");
    for name in SUBCOMMANDS {
        assert!(page.contains(&format!("logdiag\\-{name}")), "{name} is not listed");
    }
}
