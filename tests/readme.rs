//! The README's runnable examples: the blocks marked `<!-- runnable: NAME -->`
//! are run with bash, as a new user would paste them, in a fresh home
//! whose `~/.cargo/bin` holds the built binary (where `cargo install` puts
//! it).

use std::process::Command;

use crate::util::*;

/// The shell block after the marker `<!-- runnable: name -->`.
fn runnable(name: &str) -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let marker = format!("<!-- runnable: {name} -->\n```\n");
    let at = readme.find(&marker).unwrap_or_else(|| panic!("no {marker:?} in README.md")) + marker.len();
    let end = readme[at..].find("```").expect("the block ends");
    readme[at..at + end].to_string()
}

#[test]
fn the_install_lines_work_in_a_fresh_home_and_man_finds_the_page() {
    let script = runnable("install");
    let home = TempDir::new("readme-home");
    let bin = home.path().join(".cargo/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("logdiag")).unwrap();
    let man = ["/usr/bin/man", "/bin/man"].into_iter().find(|m| std::path::Path::new(m).exists());
    let script = match man {
        Some(_) => script,
        None if std::env::var_os("LOGDIAG_REQUIRE_MAN").is_some() => panic!("man is needed (man-db)"),
        None => {
            eprintln!("skipped: `man -w` (man-db is not installed); the other lines run");
            script.lines().filter(|l| !l.starts_with("man ")).collect::<Vec<_>>().join("\n")
        }
    };
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{script}\nstdout: {}\nstderr: {}", stdout(&out), stderr(&out));
    let completion = home.path().join(".local/share/bash-completion/completions/logdiag");
    assert!(std::fs::read_to_string(completion).unwrap().contains("logdiag"));
    let page = home.path().join(".cargo/share/man/man1/logdiag.1.gz");
    assert!(std::fs::metadata(&page).unwrap().len() > 0);
    if man.is_some() {
        assert_eq!(stdout(&out).trim(), page.to_str().unwrap(), "man -w finds the page");
    }
}

/// The codes of the table that follows `heading` in the README.
fn exit_table(heading: &str) -> Vec<i32> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let at = readme.find(heading).unwrap_or_else(|| panic!("no {heading:?} in README.md"));
    let rows = readme[at..].lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|'));
    let mut codes: Vec<i32> = rows.filter_map(|row| row.split('|').nth(1)?.trim().parse().ok()).collect();
    codes.sort_unstable();
    codes
}

#[test]
fn the_readme_tables_of_exit_codes_are_the_exits_logdiag_has() {
    use logdiag::exit::Exit;
    let codes = |ends: fn(Exit) -> bool| {
        let mut codes: Vec<i32> = Exit::ALL.into_iter().filter(|e| ends(*e)).map(Exit::code).collect();
        codes.sort_unstable();
        codes
    };
    assert_eq!(exit_table("### Exit codes"), codes(Exit::ends_a_diagnosis), "a diagnosis's exits");
    assert_eq!(exit_table("| exit code | meaning |"), codes(Exit::ends_a_watch), "a watch's exits");
}

#[test]
fn the_agents_systemd_unit_is_one_systemd_accepts() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let marker = "<!-- systemd: logdiag-agent.service -->\n```\n";
    let at = readme.find(marker).expect("the README's agent unit") + marker.len();
    let unit = &readme[at..at + readme[at..].find("```").unwrap()];
    assert!(unit.contains("--each-unit") && unit.contains("--metrics-file"), "{unit}");
    let Some(analyze) = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
    else {
        eprintln!("skipped: systemd-analyze not installed");
        return;
    };
    // systemd checks that the program exists: the one built here stands
    // where the README installs it.
    let unit = unit.replace("/usr/local/bin/logdiag", BIN);
    let dir = TempDir::new("agent-unit");
    let file = dir.write("logdiag-agent.service", unit.as_bytes());
    let out = Command::new(analyze).args(["verify", "--man=no"]).arg(&file).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // Unknown keys are only warned about: any word on the unit is a fault.
    assert!(out.status.success() && !said.contains("logdiag-agent.service"), "{said}");
}
