//! Rule tooling: list, check, explain, and the guide's worked example.

use crate::util::*;

#[test]
fn the_builtin_rule_folder_checks_clean() {
    let out = run(&["rules", "check", "rules"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("rules ok"));
}

#[test]
fn rules_list_and_explain() {
    let list = stdout(&run(&["rules", "list"]));
    assert!(list.contains("flashinfer.arch-check") && list.contains("flashinfer-unsupported-arch"));
    let explain = run(&["rules", "explain", "systemd.killed-by-sigkill"]);
    assert_eq!(explain.status.code(), Some(0));
    let text = stdout(&explain);
    assert!(text.contains("role:      symptom") && text.contains("sample:"), "{text}");
    assert_eq!(run(&["rules", "explain", "no.such-rule"]).status.code(), Some(2));
}

/// `rules literals` prints what every match of a rule contains one of,
/// one per line, for `rg -i -F -f`.
#[test]
fn rules_literals_prints_what_each_match_must_contain() {
    let dir = TempDir::new("literal-rules");
    dir.write("site/frob.toml", b"role = \"cause\"\ncategory = \"segfault\"\ntitle = \"x\"\nhint = \"h\"\n[match]\nmessage = '(?i)frobnicator (lost|dropped) its balance'\n[test]\nsamples = ['Frobnicator lost its balance']\n");
    dir.write("site/any.toml", b"role = \"cause\"\ncategory = \"segfault\"\ntitle = \"y\"\nhint = \"h\"\n[match]\nmessage = '^\\w+$'\n[test]\nsamples = ['word']\n");
    let site = dir.path().join("site");
    let out = run(&["rules", "literals", "--no-default-rules", "--rules", site.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The literal every match holds (the prefilter's: the longest common
    // run of the alternatives' words is enough).
    assert_eq!(stdout(&out).to_lowercase(), "frobnicator \n", "{}", stdout(&out));
    assert!(stderr(&out).contains("1 literals from 2 rules; 1 rules require none"), "{}", stderr(&out));
    let builtin = stdout(&run(&["rules", "literals"]));
    assert!(builtin.lines().any(|l| l == "Received sigquit from a child proc"), "{builtin}");
}

#[test]
fn a_broken_rule_folder_reports_every_error_at_once() {
    let dir = TempDir::new("broken-rules");
    dir.write("a/one.toml", b"role = \"cause\"\ncategory = \"not-a-category\"\ntitle = \"x\"\nhint = \"h\"\n[match]\nmessage = 'x'\n[test]\nsamples = ['x']\n");
    dir.write("a/two.toml", b"role = \"symptom\"\ncategory = \"unknown\"\ntitle = \"x\"\nwhy = \"w\"\n[match]\nmessage = 'abc'\n[test]\nsamples = ['xyz']\n");
    dir.write("a/three.toml", b"role = [\n");
    let out = run(&["rules", "check", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.contains("one.toml:2:12: unknown category 'not-a-category'"), "{text}");
    assert!(text.contains("two.toml:8:12: sample does not match this rule"), "{text}");
    assert!(text.contains("three.toml:"), "{text}");
    assert!(text.contains("3 problem(s) found"), "{text}");
}

#[test]
fn every_misplaced_or_missing_key_of_a_file_is_named() {
    let dir = TempDir::new("rule-keys");
    dir.write(
        "a/slips.toml",
        b"role = \"cause\"\ncategory = \"abort\"\ntitel = \"x\"\nhint = \"h\"\n[match]\nmesage = 'x'\nlevle = ['error']\n[test]\nsamples = ['x']\n",
    );
    let out = run(&["rules", "check", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.contains("slips.toml:3:1: unknown field `titel` (did you mean `title`?)"), "{text}");
    assert!(text.contains("missing field `title`"), "{text}");
    assert!(
        text.contains("slips.toml:6:1: unknown field `mesage` in [match] (did you mean `message`?)"),
        "{text}"
    );
    assert!(
        text.contains("slips.toml:7:1: unknown field `levle` in [match] (did you mean `level`?)"),
        "{text}"
    );
    assert!(text.contains("missing field `message` in [match]"), "{text}");
    assert!(text.contains("5 problem(s) found"), "{text}");
}

#[test]
fn a_failing_sample_shows_the_message_the_rule_saw() {
    let dir = TempDir::new("rule-seen");
    // The author matches `FATAL:`, which logdiag reads as the line's level.
    dir.write(
        "a/fatal.toml",
        b"role = \"cause\"\ncategory = \"abort\"\ntitle = \"x\"\nhint = \"h\"\n[match]\nmessage = '^FATAL: engine died'\n[test]\nsamples = ['FATAL: engine died']\n",
    );
    // A level the line does not carry.
    dir.write(
        "a/level.toml",
        b"role = \"cause\"\ncategory = \"abort\"\ntitle = \"x\"\nhint = \"h\"\n[match]\nmessage = 'engine died'\nlevel = ['error']\n[test]\nsamples = ['WARNING engine died']\n",
    );
    let out = run(&["rules", "check", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.contains("the rule sees the message \"engine died\" (level fatal;"), "{text}");
    assert!(text.contains("\"FATAL:\" was read as the line's prefix and its level fatal"), "{text}");
    assert!(text.contains("(level warning;") && text.contains("its level is not one of error"), "{text}");
}

#[test]
fn a_hint_names_only_captures_the_regex_defines_and_gets_their_values() {
    let dir = TempDir::new("rule-hint");
    dir.write(
        "a/hint.toml",
        b"role = \"cause\"\ncategory = \"abort\"\ntitle = \"x\"\nhint = \"run `tool {pid}`; docker's {{.State}} is text\"\n[match]\nmessage = 'engine died'\n[test]\nsamples = ['engine died']\n",
    );
    let out = run(&["rules", "check", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.contains("hint uses {pid} but the message regex has no group named 'pid'"), "{text}");
    assert!(!text.contains("{.State}"), "{text}");
    // A built-in hint's placeholder is filled from the line.
    let log = "Nov 30 10:00:10 h systemd-coredump[2201]: Process 4711 (python3) of user 0 dumped core.\n";
    let out = run_stdin(&["-", "--format", "json"], log.as_bytes());
    let json = stdout(&out);
    assert!(json.contains("coredumpctl info 4711"), "{json}");
    assert!(!json.contains("{pid}"), "{json}");
}

#[test]
fn explains_may_name_an_area_not_loaded_but_not_a_misspelt_id() {
    // rules/fate loaded alone: its rules explain torchrun's teardown line,
    // a rule of an area that is not there.
    let out = run(&["rules", "check", root().join("rules/fate").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let dir = TempDir::new("explains");
    let rule = |explains: &str| {
        format!("role = \"symptom\"\ncategory = \"unknown\"\ntitle = \"x\"\nwhy = \"w\"\nexplains = [\"{explains}\"]\n[match]\nmessage = 'xyz'\n[test]\nsamples = ['xyz']\n")
    };
    dir.write("a/one.toml", rule("other.thing").as_bytes());
    dir.write("a/two.toml", rule("a.onne").as_bytes());
    let out = run(&["rules", "check", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.contains("two.toml:5:13: `explains` names unknown rule id 'a.onne'"), "{text}");
    assert!(text.contains("1 problem(s) found"), "{text}");
}

/// The example in rules/README.md works as written.
#[test]
fn the_authoring_guide_example_works() {
    let guide = std::fs::read_to_string(root().join("rules/README.md")).unwrap();
    let start = guide.find("```toml\n").expect("a toml example") + "```toml\n".len();
    let end = start + guide[start..].find("```").unwrap();
    let dir = TempDir::new("guide");
    dir.write("site/gpu-healthcheck.toml", &guide.as_bytes()[start..end]);
    let check = run(&["rules", "check", dir.path().to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    let log = dir.write(
        "server.log",
        b"Nov 29 10:00:00 node-7 systemd[1]: Starting sglang.service - SGLang...\n\
Nov 29 10:00:01 node-7 gpu-healthcheck[812]: GPU 3 failed health check: ECC page retirement pending (reset required)\n\
Nov 29 10:00:01 node-7 systemd[1]: sglang.service: Control process exited, code=exited, status=1/FAILURE\n",
    );
    let without = run(&["--format", "json", log.to_str().unwrap()]);
    assert_ne!(
        json(&without)["root_cause"]["category"],
        "gpu-xid",
        "the built-in rules do not know the script"
    );
    let out = run(&["--format", "json", "--rules", dir.path().to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["root_cause"]["category"], "gpu-xid");
    assert_eq!(
        report["root_cause"]["title"],
        "GPU 3 failed the site health check: ECC page retirement pending (reset required)"
    );
}

/// A rule's sample is read by the same path as a log: a line as vLLM
/// colours it on a terminal (`VLLM_LOGGING_COLOR=1`) is a valid sample,
/// and the same coloured line in a log is matched by the rule.
#[test]
fn a_coloured_sample_matches_as_the_coloured_log_line_does() {
    let coloured =
        "\x1b[1;31mERROR\x1b[0m 05-25 20:27:22 [core.py:1161] Site check failed: disk 3 is read-only";
    let dir = TempDir::new("coloured-sample");
    let rule = format!(
        "role = \"cause\"\ncategory = \"permission-denied\"\ntitle = \"site check: {{what}}\"\nhint = \"h\"\n\
[match]\nmessage = '^Site check failed: (?P<what>.+)'\nlevel = [\"error\"]\n\
[test]\nsamples = [\"{}\"]\n",
        // TOML takes the escape character only as `\u001b`.
        coloured.replace('\x1b', "\\u001b")
    );
    dir.write("site/check.toml", rule.as_bytes());
    let check = run(&["rules", "check", dir.path().to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));

    let log = dir.write("server.log", format!("{coloured}\n").as_bytes());
    let out = run(&["--format", "json", "--rules", dir.path().to_str().unwrap(), log.to_str().unwrap()]);
    let report = json(&out);
    assert_eq!(report["root_cause"]["rule"], "site.check", "{report}");
    assert_eq!(report["root_cause"]["title"], "site check: disk 3 is read-only");
}

/// The rule guide lists every category `rules categories` prints.
#[test]
fn the_rule_guide_lists_every_category() {
    let out = run(&["rules", "categories"]);
    assert_eq!(out.status.code(), Some(0));
    let guide = std::fs::read_to_string(root().join("rules/README.md")).unwrap();
    let names: Vec<String> = stdout(&out)
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(names.len() > 20 && names.contains(&"cuda-oom".to_string()), "{names:?}");
    for name in names {
        assert!(guide.contains(&format!("| `{name}` |")), "rules/README.md does not list {name}");
    }
}
